package prombackoff

import (
	"context"
	"errors"
	"strconv"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/prometheus/client_golang/prometheus"
)

// Instrumenter is a backoff.Instrumenter that counts attempts, retries and
// give-ups, and records the waits, in metrics registered on a
// prometheus.Registerer; its Observe methods register collectors of the
// guards' state. Make one with New, and give it, or the Instrumenter of an
// operation that its Named method returns, to any number of retries with
// backoff.WithInstrumenter. Used itself, it counts an unnamed operation,
// under the name Unnamed. It is safe for concurrent use.
type Instrumenter struct {
	reg       prometheus.Registerer
	namespace string
	names     telemetry.Namer // with the user's WithErrorType, if any
	maxRetry  int             // the first retry whose retry_num is capped
	capped    string          // the retry_num of the retries from maxRetry: "maxRetry+"

	attempts *prometheus.CounterVec
	retries  *prometheus.CounterVec
	giveUps  *prometheus.CounterVec
	wait     *prometheus.HistogramVec

	series telemetry.Names[*named] // the Instrumenters of the names
}

// named is the Instrumenter of one operation name (see Named), with the
// series of the name whose other labels are fixed. It is made once for each
// name, and never changed.
type named struct {
	in                        *Instrumenter
	name                      string
	success, failure, refused prometheus.Counter
	wait                      prometheus.Observer
}

// New returns an Instrumenter whose metrics are registered on reg, which
// may be prometheus.DefaultRegisterer or a registry of your own. If reg
// already holds the metrics of an Instrumenter with the same namespace,
// New shares them, so that several Instrumenters can count into one
// registry.
//
// A nil reg, typed or not, or an invalid option is reported as an error matching
// backoff.ErrInvalidConfiguration; so is a metric that reg refuses (one of
// the same name registered by other code with other labels, say), and New
// then leaves nothing registered.
func New(reg prometheus.Registerer, opts ...Option) (*Instrumenter, error) {
	c := config{namespace: DefaultNamespace, maxRetryNum: DefaultMaxRetryNum}
	setting.Apply(settings, &c.err, "New", &c, opts)
	var nilReg error
	if reg == nil || typednil.Is(reg) {
		nilReg = settings.Invalid("New was given a nil Registerer")
	}
	if err := setting.Join(nilReg, c.err); err != nil {
		return nil, err
	}
	in := &Instrumenter{reg: reg, namespace: c.namespace, names: telemetry.Namer{ErrorType: c.errorType}}
	in.maxRetry, in.capped = c.maxRetryNum, strconv.Itoa(c.maxRetryNum)+"+"

	in.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: c.namespace, Name: "attempts_total",
		Help: "Attempts made by retries, by how they ended: success, failure, or refused by a guard.",
	}, []string{labelName, labelOutcome})
	in.retries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: c.namespace, Name: "retries_total",
		Help: "Retries scheduled after a failed attempt, before their wait, by retry number and error type.",
	}, []string{labelName, labelRetryNum, labelErrorType})
	in.giveUps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: c.namespace, Name: "give_ups_total",
		Help: "Retried calls that failed: the driver gave up, by why.",
	}, []string{labelName, labelCause})
	in.wait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: c.namespace, Name: "wait_seconds",
		Help:    "Waits scheduled before a retry, in seconds.",
		Buckets: telemetry.WaitBuckets(),
	}, []string{labelName})

	var done []prometheus.Collector // what New registered, to undo
	var errs [4]error
	in.attempts, errs[0] = register(reg, in.attempts, &done)
	in.retries, errs[1] = register(reg, in.retries, &done)
	in.giveUps, errs[2] = register(reg, in.giveUps, &done)
	in.wait, errs[3] = register(reg, in.wait, &done)
	if err := errors.Join(errs[:]...); err != nil {
		for _, c := range done {
			reg.Unregister(c)
		}
		return nil, settings.Invalid("New: %w", err)
	}
	return in, nil
}

// register registers c on reg and returns it; or, if reg holds a collector
// of the same metric already, that one. It appends to done what it
// registered.
func register[C prometheus.Collector](reg prometheus.Registerer, c C, done *[]prometheus.Collector) (C, error) {
	err := reg.Register(c)
	if err == nil {
		*done = append(*done, c)
		return c, nil
	}
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// check panics with a clear message for an Instrumenter New did not make,
// which could count nothing.
func (in *Instrumenter) check() {
	if in == nil || in.attempts == nil {
		panic("prombackoff: the Instrumenter was not made by New")
	}
}

// Named returns the Instrumenter of the operation name: it counts into
// in's metrics, with the label name=name, so that the series of different
// operations stay apart. Give it to a retry with
// backoff.WithInstrumenter(in.Named(name)). It is safe for concurrent use.
//
// The Instrumenters of up to 1024 names are made once and kept, with their
// series, so that a call of Named for a name seen before allocates nothing;
// past that, each call makes one anew, which looks its series up in the
// vectors. Names must be a bounded set: name operations, not requests.
// Named("") is the unnamed operation's Instrumenter, which counts as in
// itself does, under Unnamed. A name that is not valid UTF-8, which no
// label value may be, is counted under the name with each run of invalid
// bytes replaced by U+FFFD ("bad\xff" under "bad\uFFFD"): Named cannot
// refuse it, and a retry must never fail, or panic, for its metrics.
func (in *Instrumenter) Named(name string) backoff.Instrumenter {
	in.check()
	return in.named(name)
}

// BeforeAttempt returns ctx: the counts need nothing of the attempt's
// context.
func (in *Instrumenter) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	in.check()
	return ctx
}

// AfterAttempt counts the attempt by its outcome, and the retry it leads
// to or the give-up, under the name Unnamed (see Named). A give-up after
// the wait that followed an attempt (the context was cancelled during it)
// is counted once, as a give-up.
func (in *Instrumenter) AfterAttempt(ctx context.Context, s backoff.State) {
	in.check()
	in.named("").AfterAttempt(ctx, s)
}

// BeforeAttempt returns ctx.
func (n *named) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return ctx
}

// AfterAttempt counts the attempt, as Instrumenter.AfterAttempt does, under
// the operation's name.
func (n *named) AfterAttempt(_ context.Context, s backoff.State) {
	in, name := n.in, n.name
	outcome := telemetry.OutcomeOf(s)
	if outcome == telemetry.NoAttempt {
		if s.GivingUp {
			in.giveUps.WithLabelValues(name, in.names.Cause(s.Cause)).Inc()
		}
		return
	}
	switch outcome {
	case telemetry.Success:
		n.success.Inc()
		return
	case telemetry.Refused:
		n.refused.Inc()
	default:
		n.failure.Inc()
	}
	if s.GivingUp {
		in.giveUps.WithLabelValues(name, in.names.Cause(s.Cause)).Inc()
		return
	}
	in.retries.WithLabelValues(name, in.retryNum(s.Number), in.names.Type(s.Err)).Inc()
	n.wait.Observe(s.NextDelay.Seconds())
}

// named returns the Instrumenter of the operation name, Unnamed for "".
func (in *Instrumenter) named(name string) *named {
	if name == "" {
		name = Unnamed
	}
	return in.series.Get(name, in.newNamed)
}

// newNamed makes the Instrumenter of name, and its series: a name that is
// not valid UTF-8 is the label value telemetry.LabelValue makes of it.
func (in *Instrumenter) newNamed(name string) *named {
	name = telemetry.LabelValue(name)
	return &named{
		in:      in,
		name:    name,
		success: in.attempts.WithLabelValues(name, telemetry.Success.String()),
		failure: in.attempts.WithLabelValues(name, telemetry.Failure.String()),
		refused: in.attempts.WithLabelValues(name, telemetry.Refused.String()),
		wait:    in.wait.WithLabelValues(name),
	}
}

// retryNum is the retry_num label of the retry after attempt k. It is
// made on demand, so that New costs the same whatever the cap; strconv
// makes the values below 100 without allocating.
func (in *Instrumenter) retryNum(k int) string {
	if k < 1 || k >= in.maxRetry {
		return in.capped
	}
	return strconv.Itoa(k)
}
