package breaker_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/policy"
)

func TestRun(t *testing.T) {
	for _, c := range []struct {
		name    string
		open    bool  // trip the breaker first
		fnErr   error // what fn returns
		wantErr error
		ran     bool
		want    breaker.Counts
	}{
		{name: "success", ran: true, want: breaker.Counts{Successes: 1}},
		{name: "failure", fnErr: errBoom, wantErr: errBoom, ran: true,
			want: breaker.Counts{Failures: 1, ConsecutiveFailures: 1}},
		{name: "refused", open: true, wantErr: breaker.ErrCircuitOpen,
			want: breaker.Counts{Failures: 1, ConsecutiveFailures: 1, Rejections: 1, Transitions: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(2))
			if c.open {
				calls(t, b, 1, errBoom)
				b = breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1))
				calls(t, b, 1, errBoom)
			}
			ran := false
			err := b.Run(t.Context(), func(context.Context) error { ran = true; return c.fnErr })
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Fatalf("Run = %v, want %v", err, c.wantErr)
			}
			// A refusal, and only a refusal, matches ErrRefused.
			if errors.Is(err, backoff.ErrRefused) != c.open {
				t.Fatalf("Run = %v: matches ErrRefused %v, want %v", err, !c.open, c.open)
			}
			if ran != c.ran {
				t.Fatalf("fn ran: %v, want %v", ran, c.ran)
			}
			if got := b.Counts(); got != c.want {
				t.Fatalf("counts %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestRunDoneContext(t *testing.T) {
	clk := newMock()
	b := dueForProbe(t, clk)
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errBoom)
	err := b.Run(ctx, func(context.Context) error { t.Fatal("fn ran"); return nil })
	if !errors.Is(err, errBoom) || !errors.Is(err, backoff.ErrRefused) {
		t.Fatalf("Run = %v, want a refusal with the context's cause", err)
	}
	admit(t, b) // the probe's place was not taken
}

func TestRunAbandoned(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1))
	ctx, cancel := context.WithCancel(t.Context())
	err := b.Run(ctx, func(ctx context.Context) error {
		cancel()
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	wantState(t, b, breaker.Closed)
	if c := b.Counts(); c.Neutral != 1 || c.Failures != 0 || c.Successes != 0 {
		t.Fatalf("counts %+v, want one neutral call", c)
	}
}

func TestRunPanicIsAFailure(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1))
	func() {
		defer func() {
			if r := recover(); r != "fn" {
				t.Fatalf("recovered %v, want fn's panic", r)
			}
		}()
		_ = b.Run(t.Context(), func(context.Context) error { panic("fn") })
	}()
	wantState(t, b, breaker.Open)
	if c := b.Counts(); c.Failures != 1 || c.Ignored != 0 {
		t.Fatalf("counts %+v, want the panic recorded once as a failure", c)
	}
}

func TestRunNil(t *testing.T) {
	b := breaker.New()
	//lint:ignore SA1012 a nil context is what is tested
	if err := b.Run(nil, func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil ctx: %v", err)
	}
	if err := b.Run(t.Context(), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil fn: %v", err)
	}
}

var errNotFound = errors.New("not found")

func TestIsFailure(t *testing.T) {
	asked := 0
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(2),
		breaker.WithIsFailure(func(err error) bool {
			asked++
			return !errors.Is(err, errNotFound)
		}))
	calls(t, b, 1, errBoom)
	calls(t, b, 1, errNotFound) // the dependency answered: a success
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Closed)
	calls(t, b, 1, nil)
	b.Record(admit(t, b), guard.Outcome{Err: errBoom, Abandoned: true})
	if asked != 3 {
		t.Fatalf("classifier asked %d times, want 3: never for nil or an abandoned call", asked)
	}
	if c := b.Counts(); c.Successes != 2 || c.Failures != 2 || c.Neutral != 1 {
		t.Fatalf("counts %+v", c)
	}
}

func TestIsFailurePanicCountsAFailure(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1),
		breaker.WithIsFailure(func(error) bool { panic("classifier") }))
	func() {
		defer func() {
			if r := recover(); r != "classifier" {
				t.Fatalf("recovered %v, want the classifier's panic", r)
			}
		}()
		call(b, errBoom)
	}()
	wantState(t, b, breaker.Open)
}

// refuser is a guard that refuses every call.
type refuser struct{}

var errFull = errors.New("full")

func (refuser) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, errFull
}
func (refuser) Record(guard.Permit, guard.Outcome) {}

func TestInnerRefusalIsNeutral(t *testing.T) {
	clk := newMock()
	b := dueForProbe(t, clk)
	c := guard.Call{Attempt: 1}
	err := guard.Run(t.Context(), b, c, func(ctx context.Context) error {
		return guard.Run(ctx, refuser{}, c, func(context.Context) error { t.Fatal("fn ran"); return nil })
	})
	if !errors.Is(err, errFull) || !errors.Is(err, backoff.ErrRefused) {
		t.Fatalf("Run = %v, want the inner refusal", err)
	}
	wantState(t, b, breaker.HalfOpen) // the probe proved nothing, and gave its place back
	if c := b.Counts(); c.Neutral != 1 || c.Failures != 1 {
		t.Fatalf("counts %+v, want 1 neutral call and the trip's failure", c)
	}
	admit(t, b)
}

func TestPolicyRefusalStopsRetrying(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(2))
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(5), backoff.WithBackOff(&backoff.ZeroBackOff{})),
		policy.Guard(b),
	)
	attempts := 0
	err := p.DoErr(t.Context(), func(context.Context) error { attempts++; return errBoom })
	var be *backoff.Error
	var oe *breaker.OpenError
	if !errors.As(err, &be) || !errors.As(be.Cause, &oe) || !errors.Is(be.Cause, breaker.ErrCircuitOpen) ||
		!errors.Is(be.Cause, backoff.ErrRefused) {
		t.Fatalf("DoErr = %v, want an *Error whose Cause is a refusal of an *OpenError", err)
	}
	if attempts != 2 || be.LastErr != errBoom {
		t.Fatalf("%d attempts, Error %+v; want 2, LastErr boom", attempts, be)
	}
	if oe.RetryAfter() != breaker.DefaultOpenDuration {
		t.Fatalf("RetryAfter %v", oe.RetryAfter())
	}
}

func TestPolicyValidatesTheBreaker(t *testing.T) {
	p := policy.New(policy.Guard(breaker.New(breaker.WithConsecutiveFailures(0))))
	err := p.DoErr(t.Context(), func(context.Context) error { t.Fatal("fn ran"); return nil })
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("DoErr = %v, want ErrInvalidConfiguration", err)
	}
}

// failsafe-go#53: a timeout stage inside the breaker makes a slow call a
// failure; one outside makes it an abandoned call, which counts as neither.
func TestSlowCalls(t *testing.T) {
	for _, c := range []struct {
		name         string
		inside       bool
		wantFailures uint64
		wantNeutral  uint64
	}{
		{name: "timeout_inside", inside: true, wantFailures: 1},
		{name: "timeout_outside", inside: false, wantNeutral: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := breaker.New() // on the time package's clock, virtual in the bubble
				timeout := policy.Timeout(time.Second)
				stages := []policy.Stage{policy.Guard(b), timeout}
				if !c.inside {
					stages = []policy.Stage{timeout, policy.Guard(b)}
				}
				p := policy.New(stages...)
				start := time.Now()
				err := p.DoErr(t.Context(), func(ctx context.Context) error {
					<-ctx.Done() // slow: it answers only when its deadline passes
					return ctx.Err()
				})
				if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
					t.Fatalf("DoErr = %v after %v, want the deadline after 1s", err, time.Since(start))
				}
				if got := b.Counts(); got.Failures != c.wantFailures || got.Neutral != c.wantNeutral {
					t.Fatalf("counts %+v, want %d failures and %d neutral", got, c.wantFailures, c.wantNeutral)
				}
			})
		})
	}
}

// The success path of a closed breaker allocates nothing, with every trip
// rule.
func TestSuccessAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	for _, c := range []struct {
		name string
		opt  breaker.Option
	}{
		{"consecutive", breaker.WithConsecutiveFailures(3)},
		{"count_window", breaker.WithFailureRate(0.5, 10, 100)},
		{"time_window", breaker.WithFailureRateOver(0.5, 10, time.Minute)},
	} {
		b := breaker.New(c.opt)
		if n := guardtest.AdmittedAllocs(t, 1000, b, ctx); n != 0 {
			t.Errorf("%s: Allow+Record allocates %v times", c.name, n)
		}
		if n := testing.AllocsPerRun(1000, func() { _ = b.Run(ctx, fn) }); n != 0 {
			t.Errorf("%s: Run allocates %v times", c.name, n)
		}
	}
}

// Allow refuses a nil context in every state, as every guard of the
// module does, with the same words: an error matching
// ErrInvalidConfiguration, and no probe's place taken.
func TestAllowNilContext(t *testing.T) {
	clk := newMock()
	halfOpen := dueForProbe(t, clk)
	cases := []struct {
		name string
		b    *breaker.Breaker
	}{
		{"closed", breaker.New()},
		{"open", tripped(t, clk, time.Hour)},
		{"open_duration_passed", halfOpen},
		{"invalid", breaker.New(breaker.WithConsecutiveFailures(0))},
		{"zero", &breaker.Breaker{}},
		{"nil", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			guardtest.RefusesNilContext(t, c.b, "breaker")
		})
	}
	// The breaker due to turn half-open kept its probe for a real call.
	admit(t, halfOpen)
}
