package telemetry

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/testkit/guardstate"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

var errDown = errors.New("down")

// The Observed of each guard of the repository, as the Observe method of
// the telemetry modules reports it.
func Breaker(b *breaker.Breaker) Observed    { return Guard("Observe", b) }
func Bulkhead(b *bulkhead.Bulkhead) Observed { return Guard("Observe", b) }
func PriorityBulkhead(b *bulkhead.PriorityBulkhead) Observed {
	return Guard("Observe", b)
}
func Limiter(l *limiter.Limiter) Observed    { return Guard("Observe", l) }
func Budget(b *budget.Budget) Observed       { return Guard("Observe", b) }
func Throttle(t *throttle.Throttle) Observed { return Guard("Observe", t) }

// read returns o's reading, by series: "metric" or "metric{value}".
func read(t *testing.T, o Observed) map[string]float64 {
	t.Helper()
	values := make([]float64, len(o.Series))
	o.Read(values)
	out := make(map[string]float64, len(values))
	for i, s := range o.Series {
		k := s.Metric.Name
		if s.Value != "" {
			k += "{" + s.Value + "}"
		}
		if _, dup := out[k]; dup {
			t.Fatalf("%s: series %s twice", o.Kind, k)
		}
		out[k] = values[i]
	}
	return out
}

// want fails t unless got has the values of want for its keys.
func want(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %s = %v (present: %v), want %v", what, k, g, ok, v)
		}
	}
}

func TestBreakerObserved(t *testing.T) {
	clk := clock.NewMock()
	var changes []string
	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithOpenDuration(time.Minute), breaker.WithClock(clk),
		breaker.WithStateChange(func(from, to breaker.State) { changes = append(changes, from.String()+">"+to.String()) }))
	o := Breaker(cb)
	want(t, "closed", read(t, o), map[string]float64{"breaker.state{closed}": 1, "breaker.state{open}": 0, "breaker.state{half-open}": 0})
	ctx := context.Background()
	_ = cb.Run(ctx, func(context.Context) error { return nil })
	_ = cb.Run(ctx, func(context.Context) error { return errDown })
	_ = cb.Run(ctx, func(context.Context) error { return errDown }) // trips it
	_ = cb.Run(ctx, func(context.Context) error { return nil })     // refused
	want(t, "open", read(t, o), map[string]float64{
		"breaker.state{closed}": 0, "breaker.state{open}": 1, "breaker.state{half-open}": 0,
		"breaker.transitions": 1, "breaker.refusals": 1,
		"breaker.calls{success}": 1, "breaker.calls{failure}": 2, "breaker.calls{neutral}": 0, "breaker.calls{ignored}": 0,
	})
	// Once the open duration has passed, reading the state moves the
	// breaker to half-open, and runs its hook on the reading goroutine.
	clk.Add(time.Minute)
	want(t, "half-open", read(t, o), map[string]float64{"breaker.state{half-open}": 1, "breaker.state{open}": 0, "breaker.transitions": 2})
	if len(changes) != 2 || changes[1] != "open>half-open" {
		t.Errorf("state changes %v, want closed>open, open>half-open", changes)
	}
}

// A breaker forced open or closed by hand reports the forced state, and
// counts the changes made by hand and the slow calls.
func TestBreakerObservedForcedAndSlow(t *testing.T) {
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(0.5, 10, 10), breaker.WithSlowCalls(time.Second, 1))
	o := Breaker(cb)
	_ = cb.Run(context.Background(), func(context.Context) error { clk.Add(2 * time.Second); return nil })
	state := func(st string) map[string]float64 {
		m := map[string]float64{}
		for _, s := range []string{"closed", "open", "half-open", "forced-open", "forced-closed"} {
			m["breaker.state{"+s+"}"] = one(s == st)
		}
		return m
	}
	_ = cb.ForceOpen()
	want(t, "forced open", read(t, o), state("forced-open"))
	_ = cb.ForceClosed()
	want(t, "forced closed", read(t, o), state("forced-closed"))
	_ = cb.Reset()
	got := read(t, o)
	want(t, "reset", got, state("closed"))
	want(t, "counts", got, map[string]float64{"breaker.forced_transitions": 3, "breaker.transitions": 3, "breaker.slow_calls": 1})
}

func TestBulkheadObserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bulkhead.New(1, bulkhead.WithQueue(1))
		o := Bulkhead(b)
		ctx := context.Background()
		held, err := b.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		release := guardstate.Queue(t, b, 1) // the second caller waits in the queue
		if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("a third caller: %v, want ErrBulkheadFull", err)
		}
		want(t, "busy", read(t, o), map[string]float64{"bulkhead.in_flight": 1, "bulkhead.queued": 1, "bulkhead.limit": 1, "bulkhead.refusals": 1})
		release()
		b.Record(held, guard.Outcome{})
		want(t, "idle", read(t, o), map[string]float64{"bulkhead.in_flight": 0, "bulkhead.queued": 0, "bulkhead.cancellations": 1})
	})
}

func TestPriorityBulkheadObserved(t *testing.T) {
	b := bulkhead.NewPriority(4) // low calls may take it to 2
	o := PriorityBulkhead(b)
	low := bulkhead.WithPriority(context.Background(), bulkhead.Low)
	for i := range 3 {
		_, err := b.Allow(low, guard.Call{Attempt: 1})
		if refused := errors.Is(err, bulkhead.ErrBulkheadFull); refused != (i == 2) {
			t.Fatalf("low call %d: %v", i+1, err)
		}
	}
	got := read(t, o)
	want(t, "low shed", got, map[string]float64{
		"bulkhead.in_flight": 2, "bulkhead.limit": 4,
		"bulkhead.refusals{low}": 1, "bulkhead.refusals{standard}": 0, "bulkhead.refusals{critical}": 0,
		"bulkhead.cancellations": 0,
	})
	if _, ok := got["bulkhead.queued"]; ok {
		t.Error("a priority bulkhead has no queue, but reports bulkhead.queued")
	}
}

func TestBudgetObserved(t *testing.T) {
	b := budget.NewTokenBucket() // 10 tokens; retries while more than 5
	o := Budget(b)
	ctx := context.Background()
	fail := guard.Outcome{Err: errDown}
	for range 4 { // 10 tokens down to 6
		p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
		b.Record(p, fail)
	}
	p, err := b.Allow(ctx, guard.Call{Attempt: 2})
	if err != nil {
		t.Fatalf("a retry at 6 tokens: %v", err)
	}
	b.Record(p, fail) // 5 tokens
	if _, err := b.Allow(ctx, guard.Call{Attempt: 2}); !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Fatalf("a retry at 5 tokens: %v, want ErrBudgetExhausted", err)
	}
	want(t, "spent", read(t, o), map[string]float64{"budget.retries": 1, "budget.refusals": 1})
}

func TestThrottleObserved(t *testing.T) {
	tr := throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0 }), throttle.WithMaxRejection(1))
	o := Throttle(tr)
	want(t, "new", read(t, o), map[string]float64{"throttle.refusals": 0, "throttle.rejection_probability": 0})
	ctx := context.Background()
	p, err := tr.Allow(ctx, guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr.Record(p, guard.Outcome{Err: errDown}) // 1 request, no accept
	if _, err := tr.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, throttle.ErrThrottled) {
		t.Fatalf("a call after a failure: %v, want ErrThrottled", err)
	}
	// 2 requests (the rejected one counts), no accepts: (2 - 2*0) / (2 + 1).
	want(t, "rejecting", read(t, o), map[string]float64{"throttle.refusals": 1, "throttle.rejection_probability": 2.0 / 3})
}

func TestLimiterObserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := limiter.New(limiter.WithInitialLimit(2), limiter.WithQueue(1), limiter.WithPriorityThresholds(0.5, 1))
		o := Limiter(l)
		ctx := context.Background()
		low := bulkhead.WithPriority(ctx, bulkhead.Low)
		first, err := l.Allow(low, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Allow(low, guard.Call{Attempt: 1}); !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("a second low call: %v, want it shed", err)
		}
		second, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		release := guardstate.Queue(t, l, 1) // the third standard caller waits in the queue
		want(t, "busy", read(t, o), map[string]float64{
			"limiter.limit": 2, "limiter.in_flight": 2, "limiter.queued": 1,
			"limiter.refusals{low}": 1, "limiter.refusals{standard}": 0, "limiter.refusals{critical}": 0,
		})
		release()
		l.Record(first, guard.Outcome{Abandoned: true})
		l.Record(second, guard.Outcome{Abandoned: true})
		want(t, "idle", read(t, o), map[string]float64{"limiter.in_flight": 0, "limiter.queued": 0, "limiter.cancellations": 1})
	})
}

func TestSharedObserved(t *testing.T) {
	g := &telemetrytest.Shared{}
	o := Shared(g)
	want(t, "shared", read(t, o), map[string]float64{"shared_guard.local": 0, "shared_guard.fallbacks": 0})
	g.Local, g.Fallbacks = true, 1 // Redis went away
	want(t, "fallen back", read(t, o), map[string]float64{"shared_guard.local": 1, "shared_guard.fallbacks": 1})
	g.Local, g.Fallbacks, g.Recoveries = false, 2, 2 // and came back, twice
	want(t, "recovered", read(t, o), map[string]float64{"shared_guard.local": 0, "shared_guard.recoveries": 2})
}

// Every Observed of a nil guard (a typed nil SharedGuard included) has no
// Read, and Check reports it, and an empty name, each named; a metric with
// a label has each of its series apart, one without has one.
func TestObservedCheck(t *testing.T) {
	const settings = setting.Package("otelbackoff")
	for _, o := range []Observed{
		Breaker(nil), Bulkhead(nil), PriorityBulkhead(nil), Limiter(nil), Budget(nil), Throttle(nil), Shared(nil), Shared((*telemetrytest.Shared)(nil)),
	} {
		err := o.Check(settings, "")
		for _, says := range []string{"otelbackoff: " + o.Method + " was given a nil guard", "empty name"} {
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), says) {
				t.Errorf("%s: Check = %v, want %q", o.Method, err, says)
			}
		}
		for _, m := range o.Metrics() {
			n := 0
			for _, s := range o.Series {
				if s.Metric == m {
					n++
					if (m.Label == nil) != (s.Value == "") && o.Kind != "bulkhead" {
						t.Errorf("%s: series %q of %s, whose label is %v", o.Kind, s.Value, m.Name, m.Label)
					}
				}
			}
			if m.Label == nil && n != 1 {
				t.Errorf("%s: %d series of %s, which has no label", o.Kind, n, m.Name)
			}
		}
	}
	if err := Breaker(breaker.New()).Check(settings, "x"); err != nil {
		t.Errorf("Check of a breaker named x: %v", err)
	}
}

// Read writes a value for every series of a guard.
func TestReadWritesEverySeries(t *testing.T) {
	for _, o := range []Observed{
		Breaker(breaker.New()), Bulkhead(bulkhead.New(1)), PriorityBulkhead(bulkhead.NewPriority(4)), Limiter(limiter.New()),
		Budget(budget.NewTokenBucket()), Throttle(throttle.New(throttle.WithClock(clock.NewMock()))), Shared(&telemetrytest.Shared{}),
	} {
		values := make([]float64, len(o.Series))
		for i := range values {
			values[i] = math.NaN()
		}
		o.Read(values)
		for i, v := range values {
			if math.IsNaN(v) {
				t.Errorf("%s: series %d (%s %q) left unread", o.Kind, i, o.Series[i].Metric.Name, o.Series[i].Value)
			}
		}
	}
}

// A Registration ends its observation once.
func TestRegistration(t *testing.T) {
	ends := 0
	r := NewRegistration(func() error { ends++; return errDown })
	if err := r.Unregister(); err != errDown {
		t.Errorf("Unregister = %v, want end's error", err)
	}
	if err := r.Unregister(); err != nil || ends != 1 {
		t.Errorf("a second Unregister = %v after %d ends, want nil after 1", err, ends)
	}
}
