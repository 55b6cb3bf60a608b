package backoff

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"
)

// CheckResult makes a result a failure when the check says so: retried,
// released before the wait, the last one returned with the *Error.
func TestCheckResult(t *testing.T) {
	var events []string
	check := func(v int) error {
		if v < 3 {
			return attemptErr(v)
		}
		return nil
	}
	discard := func(v int) { events = append(events, "discard "+string(rune('0'+v))) }
	clk := newSpecClock()
	n := 0
	var (
		v   int
		err error
	)
	waits := specDrive(t, clk, func(i int, d time.Duration) {
		events = append(events, "wait")
		clk.Add(d)
	}, func() {
		v, err = Do(context.Background(), func(context.Context) (int, error) { n++; return n, nil },
			WithClock(clk), WithBackOff(NewConstantBackOff(time.Second)), CheckResult(check, discard))
	})
	if v != 3 || err != nil || len(waits) != 2 {
		t.Fatalf("(%d, %v) after waits %v, want (3, nil) after two", v, err, waits)
	}
	if want := []string{"discard 1", "wait", "discard 2", "wait"}; !slices.Equal(events, want) {
		t.Errorf("events %v, want each rejected result discarded before its wait: %v", events, want)
	}

	// Exhausted: the last result is returned, not discarded, and LastErr is
	// the check's error.
	events, n = nil, 0
	v, err = Do(context.Background(), func(context.Context) (int, error) { n++; return n, nil },
		WithBackOff(&ZeroBackOff{}), WithMaxTries(2), CheckResult(check, discard))
	specCheckStop(t, err, ErrExhausted, attemptErr(2))
	if v != 2 || !slices.Equal(events, []string{"discard 1"}) {
		t.Errorf("result %d, events %v; want the last result 2, and only the first discarded", v, events)
	}

	// The check speaks the operation's vocabulary: Permanent stops,
	// RetryAfter names the wait.
	n = 0
	_, err = Retry(func() (int, error) { n++; return n, nil }, CheckResult(func(int) error { return Permanent(io.EOF) }, nil))
	specCheckStop(t, err, ErrPermanent, io.EOF)
	if n != 1 {
		t.Errorf("%d attempts after a Permanent check, want 1", n)
	}
	clk = newSpecClock()
	n = 0
	waits = specDrive(t, clk, nil, func() {
		_, err = Retry(func() (int, error) { n++; return n, nil }, WithClock(clk),
			CheckResult(func(v int) error {
				if v == 1 {
					return RetryAfter(7*time.Second, io.EOF)
				}
				return nil
			}, nil))
	})
	if err != nil || !slices.Equal(waits, []time.Duration{7 * time.Second}) {
		t.Errorf("%v after waits %v, want success after the check's 7s", err, waits)
	}
}

// A panicking check does not leak the result it was judging.
func TestCheckResultPanic(t *testing.T) {
	var discarded []int
	defer func() {
		if v := recover(); v != "bad check" || !slices.Equal(discarded, []int{5}) {
			t.Errorf("recovered %v, discarded %v; want the check's panic after 5 was discarded", v, discarded)
		}
	}()
	_, _ = Do(context.Background(), func(context.Context) (int, error) { return 5, nil },
		CheckResult(func(int) error { panic("bad check") }, func(v int) { discarded = append(discarded, v) }))
}

// In a Policy the check runs on the function's result, innermost: a guard
// inside the retry stage sees a rejected result as a failure.
func TestCheckResultInAPolicy(t *testing.T) {
	g := &specGuardLog{}
	errBad := errors.New("bad result")
	p := NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{}), CheckResult(func(v string) error {
		if v == "bad" {
			return errBad
		}
		return nil
	}, nil)), WithGuard(g))
	n := 0
	v, err := Execute(context.Background(), p, func(context.Context) (string, error) {
		if n++; n == 1 {
			return "bad", nil
		}
		return "good", nil
	})
	if v != "good" || err != nil || len(g.outcomes) != 2 || !errors.Is(g.outcomes[0].Err, errBad) || g.outcomes[1].Err != nil {
		t.Errorf("(%q, %v), outcomes %+v; want good after the guard saw the rejection as a failure", v, err, g.outcomes)
	}
	// Through DoErr and Policy.Execute, whose result type is struct{}, a
	// check for another type is reported.
	if err := DoErr(context.Background(), func(context.Context) error { return nil }, CheckResult(func(int) error { return nil }, nil)); !errors.Is(err, ErrInvalidConfiguration) {
		t.Errorf("DoErr with a CheckResult for int: %v, want ErrInvalidConfiguration", err)
	}
}

// A result the driver holds when a callback panics is discarded before the
// panic goes on; a result discarded before a wait that a cancellation
// ends is not returned.
func TestCheckResultHeldResults(t *testing.T) {
	for _, name := range []string{"Notify", "Instrumenter after a success"} {
		t.Run(name, func(t *testing.T) {
			var discarded []int
			opts := []RetryOption{WithBackOff(&ZeroBackOff{}),
				CheckResult(func(v int) error {
					if v == 1 {
						return io.EOF
					}
					return nil
				}, func(v int) { discarded = append(discarded, v) })}
			want := []int{1}
			if name == "Notify" {
				opts = append(opts, WithNotify(func(error, time.Duration) { panic("notify") }))
			} else {
				opts = append(opts, WithInstrumenter(panicAfter{}))
				want = []int{1, 2}
			}
			func() {
				defer func() { _ = recover() }()
				n := 0
				_, _ = Do(context.Background(), func(context.Context) (int, error) { n++; return n, nil }, opts...)
			}()
			if !slices.Equal(discarded, want) {
				t.Errorf("discarded %v, want %v", discarded, want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	clk := newSpecClock()
	var (
		v   int
		err error
	)
	specDrive(t, clk, specCancelAt(clk, 0, cancel), func() {
		v, err = Do(ctx, func(context.Context) (int, error) { return 8, nil }, WithClock(clk),
			CheckResult(func(int) error { return io.EOF }, func(int) {}))
	})
	if v != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("(%d, %v), want the zero value (the result was discarded before the wait) and context.Canceled", v, err)
	}
}

// panicAfter panics in AfterAttempt of a successful attempt.
type panicAfter struct{}

func (panicAfter) BeforeAttempt(ctx context.Context, _ State) context.Context { return ctx }
func (panicAfter) AfterAttempt(_ context.Context, s State) {
	if s.Err == nil {
		panic("after")
	}
}
