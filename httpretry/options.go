package httpretry

import (
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/policy"
)

// Defaults of a Transport.
const (
	// DefaultMaxTries is the number of attempts a request gets, the first
	// one included.
	DefaultMaxTries = policy.DefaultMaxTries
	// DefaultMaxElapsedTime is the time a request may spend, its retries
	// and their waits included, counted from the call to RoundTrip; see
	// WithMaxElapsedTime.
	DefaultMaxElapsedTime = 30 * time.Second
	// DefaultMaxRetryAfter is the longest Retry-After a Transport obeys:
	// the core's backoff.DefaultMaxRetryAfter, the bound of every named
	// wait.
	DefaultMaxRetryAfter = backoff.DefaultMaxRetryAfter
)

// Option configures a Transport. Options are applied in order; a later
// option replaces an earlier one of the same kind, except
// WithInstrumenter, WithRequestGuards and WithAttemptGuards, which add to
// the ones before. An option given a value it cannot use makes every
// RoundTrip fail with an error matching ErrInvalidConfiguration.
type Option func(*config)

// rules are the settings a Transport reads on every request, as the
// options set them.
type rules struct {
	retryable     func(*http.Request, *http.Response, error) bool
	methods       []string
	idemHeaders   []string
	maxRetryAfter time.Duration
	clock         clock.Clock
	random        func() float64
	hopHeaders    bool // send the attempt and the deadline with every attempt
}

// config is what the options set.
type config struct {
	rules

	// Where the guards go, and the bound of each attempt.
	requestGuards  []guard.Guard
	attemptGuards  []guard.Guard
	attemptTimeout time.Duration

	// The retry stage's: the core's options, in the order given, and what
	// the Transport itself reads of them.
	retry         []backoff.RetryOption
	maxTries      uint
	instrumenters []backoff.Instrumenter
	logger        *slog.Logger
	name          string

	err error // the first invalid setting
}

// newConfig returns the defaults of a Transport.
func newConfig() config {
	return config{
		rules: rules{
			retryable:     DefaultRetryable,
			methods:       defaultMethods,
			idemHeaders:   defaultIdempotencyHeaders,
			maxRetryAfter: DefaultMaxRetryAfter,
			clock:         setting.RealClock,
			random:        rand.Float64,
			hopHeaders:    true,
		},
		maxTries: DefaultMaxTries,
		name:     "httpretry",
	}
}

// fail records the first invalid setting.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// retryOption adds ro, the core's option that the option named name
// gives, to the retry stage's options, once the core has checked it (see
// checked).
func (c *config) retryOption(name string, ro backoff.RetryOption) {
	if c.checked(name, ro) {
		c.retry = append(c.retry, ro)
	}
}

// checked reports whether the core accepts ro, the core's option that the
// option named name gives; if not, the core's error, under the option's
// name, is the first invalid setting unless one came before it.
func (c *config) checked(name string, ro backoff.RetryOption) bool {
	err := backoff.NewRetrier(ro).Validate()
	if err == nil {
		return true
	}
	msg := setting.Reason(err)
	if strings.HasPrefix(msg, name+" ") {
		c.fail("%s", msg)
	} else {
		c.fail("%s: %s", name, msg)
	}
	return false
}

// retryOptions returns the options of the driver of the Transport's retry
// stage: a Transport's defaults, then the options given, then the hooks
// every such stage has. The Notify hook drains an intermediate response
// before the wait (see discardRetried); statusSlot, when AttemptStatus is
// read, is the first Instrumenter, so that every other one, and the
// logger, receives a context derived from the attempt's.
func (c *config) retryOptions(status bool) []backoff.RetryOption {
	ro := make([]backoff.RetryOption, 0, 6+len(c.retry)+len(c.instrumenters))
	ro = append(ro,
		backoff.WithBackOff(defaultBackOff),
		backoff.WithMaxTries(DefaultMaxTries),
		backoff.WithMaxElapsedTime(DefaultMaxElapsedTime),
		backoff.WithClock(setting.RealClock),
		// The core's bound on a named wait, with room for the random
		// extra the Transport adds to a Retry-After it obeys.
		backoff.WithMaxRetryAfter(c.maxRetryAfter+min(c.maxRetryAfter, MaxRetryAfterJitter, math.MaxInt64-c.maxRetryAfter)),
	)
	ro = append(ro, c.retry...)
	ro = append(ro, backoff.WithNotify(discardRetried))
	if status {
		ro = append(ro, backoff.WithInstrumenter(statusSlot{}))
	}
	if c.logger != nil {
		ro = append(ro, backoff.WithInstrumenter(logInstrumenter(c.logger, c.name)))
	}
	for _, in := range c.instrumenters {
		ro = append(ro, backoff.WithInstrumenter(in))
	}
	return ro
}

// DefaultBackOff returns a new instance of the default BackOff, the one a
// retry stage of package policy uses (policy.DefaultBackOff): full-jitter
// exponential backoff whose nominal wait starts at 100 ms and doubles
// after each retry, each wait drawn uniformly from [0, nominal] and capped
// at 5 s.
func DefaultBackOff() backoff.BackOff { return policy.DefaultBackOff() }

// defaultBackOff serves every retry stage built without WithBackOff: each
// request runs on a clone of it.
var defaultBackOff = DefaultBackOff()

// WithBackOff sets the BackOff that computes the wait before each retry.
// A Transport serves many requests at once, and each request runs on its
// own copy of b, made by its Clone method (the core package's rule, stated
// at backoff.BackOff and enforced by backoff.NewRetrier), so one request's
// retries never consume another's. b must therefore have a Clone method, as
// every BackOff of the core package does; one that does not is invalid, and so
// is a nil b, typed or not, and one whose Validate fails, as for
// backoff.WithBackOff. The default is DefaultBackOff.
func WithBackOff(b backoff.BackOff) Option {
	return func(c *config) { c.retryOption("WithBackOff", backoff.WithBackOff(b)) }
}

// WithMaxTries limits the attempts a request gets, the first one included:
// WithMaxTries(1) disables retries, and 0 means no limit but
// WithMaxElapsedTime and the context, as in the core package. The default
// is DefaultMaxTries.
func WithMaxTries(n uint) Option {
	return func(c *config) {
		c.retryOption("WithMaxTries", backoff.WithMaxTries(n))
		c.maxTries = n
	}
}

// WithMaxElapsedTime limits the time a request may spend, its attempts
// and waits included, counted from the call to RoundTrip (once the guards
// of WithRequestGuards have admitted the request): a retry whose wait
// would end after the limit is not started, and the caller gets what the
// Transport has (see Transport). The limit is checked again after an
// intermediate response is drained, so a slow drain cannot start a wait
// past it. It does not interrupt an attempt in progress; use the request's
// context for that. Because it counts from the call, a first attempt that
// itself runs past the limit is not retried. It is
// backoff.WithMaxElapsedTime, with a default of DefaultMaxElapsedTime
// (30 s); 0 sets no such limit, and a negative d is invalid.
func WithMaxElapsedTime(d time.Duration) Option {
	return func(c *config) { c.retryOption("WithMaxElapsedTime", backoff.WithMaxElapsedTime(d)) }
}

// WithRetryable replaces DefaultRetryable, the classifier that says
// whether a failed attempt is worth retrying. It is called after every
// attempt with the caller's request (which it must not modify) and either
// the response or the transport error; it may be called from several
// goroutines at once. It decides only whether the failure is transient: the
// replay rules (method, idempotency key, body) and the request's context
// are applied whatever it returns. A nil classifier is invalid. If it
// panics, the response it was judging is closed before the panic goes on.
//
// What it finds retryable is also what the guards (see WithAttemptGuards)
// count as a failed attempt: a response it does not retry, such as a 404
// or, by default, a 500, is a success to a breaker.
func WithRetryable(retryable func(req *http.Request, resp *http.Response, err error) bool) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.retryable, retryable, "WithRetryable", "classifier")
	}
}

// WithRetryableMethods replaces the set of methods that may be retried
// without an idempotency key; the default is GET, HEAD, OPTIONS and TRACE.
// With no method, only requests carrying an idempotency key are retried.
// Methods are case-sensitive, as in HTTP: a method that is not a valid
// token, or a standard method spelled in the wrong case ("post"), is
// invalid.
//
// Only list methods whose requests are safe to repeat on your servers: a
// retried request may be carried out twice.
func WithRetryableMethods(methods ...string) Option {
	methods = append([]string(nil), methods...)
	return func(c *config) {
		for _, m := range methods {
			if !validToken(m) {
				c.fail("WithRetryableMethods was given %q, which is not a valid method", m)
				continue
			}
			for _, std := range standardMethods {
				if m != std && strings.EqualFold(m, std) {
					c.fail("WithRetryableMethods was given %q: methods are case-sensitive; did you mean %q?", m, std)
				}
			}
		}
		c.methods = methods
	}
}

// WithIdempotencyKeyHeader sets the header whose presence makes a request
// retryable whatever its method, replacing both default headers,
// Idempotency-Key and X-Idempotency-Key. The header counts if it is present,
// even with an empty value, as net/http counts it. An empty name disables
// the rule; a name that is not a valid header name is invalid.
//
// The header is a promise the client makes: a retry is safe only if the
// server honours it.
func WithIdempotencyKeyHeader(name string) Option {
	return func(c *config) {
		if name == "" {
			c.idemHeaders = nil
			return
		}
		if !validToken(name) {
			c.fail("WithIdempotencyKeyHeader was given %q, which is not a valid header name", name)
		}
		c.idemHeaders = []string{http.CanonicalHeaderKey(name)}
	}
}

// WithMaxRetryAfter sets the longest wait a server may ask for with
// Retry-After on a 429 or 503 response. A response asking for more is not
// retried: it is handed to the caller at once, so a server cannot hold the
// caller's goroutine for as long as it likes. The default is
// DefaultMaxRetryAfter; 0 obeys only "Retry-After: 0". A negative d is
// invalid. It bounds the requests' driver as backoff.WithMaxRetryAfter
// does (the same rule, with room for the
// random extra of RetryAfterWait).
//
// A Retry-After that is obeyed replaces the computed wait before that
// retry, spread by a random extra (see RetryAfterWait), and restarts the
// computed sequence: the BackOff is reset, so a later failure without
// Retry-After waits as the first retry would (from 100 ms with
// DefaultBackOff), not as the next step after the waits before it. This is
// deliberate: the server has said when it expects to recover, and the
// sequence starts over from that point.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) {
		setting.NotNegative(settings, &c.err, &c.maxRetryAfter, d, "WithMaxRetryAfter")
	}
}

// WithHopHeaders says whether every attempt carries the headers of
// package hop: hop.AttemptHeader (X-Attempt-Count), its number from 1, and,
// when the attempt's context has a deadline, hop.TimeoutHeader
// (X-Request-Timeout-Ms), the whole milliseconds left until it, read on
// the Transport's clock. A server of package httpshed reads them to shed
// retries before first calls and to refuse at once a request whose caller
// will not wait for its queue; a server that knows nothing of them ignores
// them. The default is true; turn them off for a server that must not
// learn them, such as a third party's. Values the caller's request has
// under these names are replaced.
//
// Whatever this setting, a response carrying hop.StopHeader
// (X-Do-Not-Retry) or Envoy's X-Envoy-Overloaded is not retried (see
// Transport.RoundTrip).
func WithHopHeaders(send bool) Option {
	return func(c *config) {
		c.hopHeaders = send
	}
}

// WithRandom replaces the random source of the extra wait added to a
// Retry-After (see RetryAfterWait): fn returns a draw in [0, 1) each time
// it is called, from any goroutine at once. The default is
// math/rand/v2's Float64. A test passes a function that returns a fixed
// value: 0 makes every Retry-After obeyed exactly. A draw outside [0, 1)
// (or NaN) is taken as the nearest bound of it, so the extra never exceeds
// its bound. A nil fn is invalid.
func WithRandom(fn func() float64) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.random, fn, "WithRandom", "function")
	}
}

// WithInstrumenter adds an Instrumenter that observes every attempt, as
// backoff.WithInstrumenter does for the core driver. AttemptStatus, called
// in AfterAttempt with the context it receives, gives the status of the
// response every attempt got, the last one included. A failed attempt's
// State.Err is a *StatusError for a retryable status or the transport
// error; State.NextDelay is the wait before the retry. State.Err is nil for
// an attempt whose response is handed to the caller because the classifier
// does not retry it. The context BeforeAttempt returns is the attempt's request
// context, so it must stay usable after the attempt: the caller reads the
// response body with it. A nil i, typed or not, is invalid.
//
// It observes the Transport's retry stage: a guard of WithAttemptGuards
// that refuses a retry ends the request with a State.Cause that matches
// backoff.ErrRefused and the guard's error; a guard of WithRequestGuards
// refuses before the stage starts, so count those with the telemetry
// modules' Observe methods.
func WithInstrumenter(i backoff.Instrumenter) Option {
	return func(c *config) {
		if c.checked("WithInstrumenter", backoff.WithInstrumenter(i)) {
			c.instrumenters = append(c.instrumenters, i) // after statusSlot and the logger
		}
	}
}

// WithLogger logs each retry and each request that fails after retrying
// through l, with the slog Instrumenter of package
// github.com/herdsafe/backoff/slog: a warning "retrying" for each failed
// attempt that will be retried and an error "giving up" when the Transport
// gives up, with the attributes that package names (retry.name,
// retry.attempt, retry.delay, error.message...). A record about an attempt
// that got a response has the attribute LogKeyStatus (http.status), its
// status code. URL passwords and queries are redacted from the records. A
// nil l logs nothing; a later WithLogger replaces an earlier one.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		c.logger = l
	}
}

// WithName names the operation in the records of WithLogger (their
// attribute retry.name). The default is "httpretry"; "" leaves the records
// unnamed. An Instrumenter given to WithInstrumenter carries its own name,
// such as the one the telemetry modules' Named methods give it.
func WithName(name string) Option {
	return func(c *config) {
		c.name = name
	}
}

// WithClock makes the waits, WithMaxElapsedTime, the time bound of a
// drain, the reading of Retry-After dates and the reading of the request
// context's deadline use c instead of the time package: pass a *clock.Mock
// in a test and advance it to release each wait. Since the deadline is read
// on c, give the request of such a test a context made by the mock's
// WithTimeout or WithDeadline: its deadline is on the mock's time, and it
// expires when the mock is advanced past it. A deadline from the context
// package is a wall-clock time, which the mock's time is far from. (Without
// WithClock, a test inside a testing/synctest bubble runs on virtual time,
// as long as nothing it waits for does real network I/O.) A nil c, typed
// or not, is invalid. The guards keep their own clocks: give them the same
// one (breaker.WithClock...).
func WithClock(c clock.Clock) Option {
	return func(cfg *config) {
		if cfg.checked("WithClock", backoff.WithClock(c)) {
			cfg.retry = append(cfg.retry, backoff.WithClock(c))
			cfg.clock = c
		}
	}
}

// standardMethods are the methods net/http names.
var standardMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

// validToken reports whether s is an HTTP token (RFC 9110, section 5.6.2),
// the syntax of both methods and header names.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
