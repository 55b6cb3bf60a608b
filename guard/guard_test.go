package guard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
)

// recorder is a Guard that admits every call unless allow says otherwise,
// and records what it is asked and told.
type recorder struct {
	mu       sync.Mutex
	allow    func(ctx context.Context, c guard.Call) error
	record   func(p guard.Permit, o guard.Outcome)
	calls    []guard.Call
	permits  []guard.Permit
	outcomes []guard.Outcome
	token    uint64
}

func (r *recorder) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	allow := r.allow
	r.mu.Unlock()
	if allow != nil {
		if err := allow(ctx, c); err != nil {
			return guard.Permit{}, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.token++
	return guard.Permit{Token: r.token}, nil
}

func (r *recorder) Record(p guard.Permit, o guard.Outcome) {
	r.mu.Lock()
	r.permits = append(r.permits, p)
	r.outcomes = append(r.outcomes, o)
	record := r.record
	r.mu.Unlock()
	if record != nil {
		record(p, o)
	}
}

// refuser refuses every call with err.
func refuser(err error) *recorder {
	return &recorder{allow: func(context.Context, guard.Call) error { return err }}
}

var errReason = errors.New("circuit open")

type ctxKey struct{}

// recovered runs fn and returns what it panicked with, nil if it did not.
func recovered(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// An admitted call runs once, with Run's context, and its outcome is
// recorded with the Permit Allow gave; Run returns fn's error itself.
func TestRunAdmits(t *testing.T) {
	for _, want := range []error{nil, io.EOF} {
		g := &recorder{}
		ctx := context.WithValue(context.Background(), ctxKey{}, "v")
		calls := 0
		err := guard.Run(ctx, g, guard.Call{Attempt: 4}, func(got context.Context) error {
			calls++
			if got.Value(ctxKey{}) != "v" {
				t.Error("fn was not given Run's context")
			}
			if len(g.outcomes) != 0 {
				t.Error("Record was called before fn returned")
			}
			return want
		})
		if err != want || calls != 1 {
			t.Errorf("Run returned %v after %d calls, want %v after 1", err, calls, want)
		}
		if len(g.calls) != 1 || g.calls[0].Attempt != 4 {
			t.Errorf("Allow was asked %+v, want the Call given to Run", g.calls)
		}
		if len(g.outcomes) != 1 || g.outcomes[0] != (guard.Outcome{Err: want}) || g.permits[0].Token != 1 {
			t.Errorf("recorded %+v with %+v, want one Outcome{Err: %v} with the Permit of Allow", g.outcomes, g.permits, want)
		}
	}
}

// A refusal returns, without calling fn or Record, an error that matches
// backoff.ErrRefused and wraps the guard's, with its message.
func TestRunRefusal(t *testing.T) {
	g := refuser(errReason)
	calls := 0
	err := guard.Run(context.Background(), g, guard.Call{Attempt: 1}, func(context.Context) error { calls++; return nil })
	if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, errReason) {
		t.Errorf("Run returned %v, want a refusal that wraps the guard's error", err)
	}
	if err == errReason || err.Error() != errReason.Error() {
		t.Errorf("Run returned %#v, want the guard's error marked, its message %q unchanged", err, errReason.Error())
	}
	if calls != 0 || len(g.outcomes) != 0 {
		t.Errorf("%d calls, outcomes %+v; want no call and nothing recorded", calls, g.outcomes)
	}
	if !guard.IsRefusal(err) {
		t.Error("IsRefusal is false for Run's refusal")
	}
	// A misconfigured guard's refusal is one too, and still says why.
	errMisconfigured := fmt.Errorf("%w: the breaker's window is 0", backoff.ErrInvalidConfiguration)
	err = guard.Run(context.Background(), refuser(errMisconfigured), guard.Call{}, func(context.Context) error { calls++; return nil })
	if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, backoff.ErrInvalidConfiguration) || calls != 0 {
		t.Errorf("a misconfigured guard: Run returned %v after %d calls, want a refusal matching ErrInvalidConfiguration", err, calls)
	}
	// errors.As reaches the guard's own error type through the mark.
	var pe *pathErr
	if err := guard.Run(context.Background(), refuser(&pathErr{"x"}), guard.Call{}, func(context.Context) error { return nil }); !errors.As(err, &pe) || pe.path != "x" {
		t.Errorf("errors.As on %v did not find the guard's *pathErr", err)
	}
}

type pathErr struct{ path string }

func (e *pathErr) Error() string { return "refused " + e.path }

// refusedErr is a guard's error that says itself that it is a refusal.
type refusedErr struct{}

func (refusedErr) Error() string        { return "refused already" }
func (refusedErr) Is(target error) bool { return target == backoff.ErrRefused }

// Refusal marks a guard's reason as Run marks it: once, its message and
// its chain kept; nil stays nil.
func TestRefusal(t *testing.T) {
	if guard.Refusal(nil) != nil {
		t.Error("Refusal(nil) is not nil")
	}
	err := guard.Refusal(errReason)
	if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, errReason) || err.Error() != errReason.Error() || !guard.IsRefusal(err) {
		t.Errorf("Refusal(errReason) = %#v, want a refusal wrapping it", err)
	}
	if again := guard.Refusal(err); again != err {
		t.Errorf("Refusal of a refusal = %#v, want it unchanged", again)
	}
}

// A guard's error that matches ErrRefused already is returned as it is.
func TestRunRefusalNotWrappedTwice(t *testing.T) {
	for _, reason := range []error{refusedErr{}, fmt.Errorf("%w: budget spent", backoff.ErrRefused)} {
		err := guard.Run(context.Background(), refuser(reason), guard.Call{}, func(context.Context) error { return nil })
		if err != reason {
			t.Errorf("Run returned %#v, want the guard's own %#v", err, reason)
		}
	}
}

// An error Allow marks with Failure is the call's own failure: Run returns
// it unmarked, without calling fn or Record, and it is no refusal.
func TestRunFailure(t *testing.T) {
	injected := errors.New("injected")
	g := refuser(guard.Failure(injected))
	calls := 0
	err := guard.Run(context.Background(), g, guard.Call{}, func(context.Context) error { calls++; return nil })
	if err != injected || calls != 0 || len(g.outcomes) != 0 {
		t.Errorf("Run returned %#v after %d calls, outcomes %+v; want the injected error itself, no call, nothing recorded", err, calls, g.outcomes)
	}
	if errors.Is(err, backoff.ErrRefused) || guard.IsRefusal(err) {
		t.Error("an injected failure is a refusal")
	}
	if guard.Failure(nil) != nil {
		t.Error("Failure(nil) is not nil")
	}
	if f := guard.Failure(injected); !errors.Is(f, injected) || f.Error() != injected.Error() || errors.Is(f, backoff.ErrRefused) {
		t.Errorf("Failure(injected) = %v, want it to wrap injected, with its message, and be no refusal", f)
	}
}

// Run reports a nil context, guard or function as ErrInvalidConfiguration,
// before asking the guard anything.
func TestRunRejectsWhatItCannotUse(t *testing.T) {
	g := &recorder{}
	ok := func(context.Context) error { return nil }
	var typedNil *recorder
	cases := []struct {
		name string
		ctx  context.Context
		g    guard.Guard
		fn   func(context.Context) error
		word string
	}{
		{"nil context", nil, g, ok, "nil context"},
		{"nil guard", context.Background(), nil, ok, "nil Guard"},
		{"typed nil guard", context.Background(), typedNil, ok, "nil Guard"},
		{"nil function", context.Background(), g, nil, "nil function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := guard.Run(c.ctx, c.g, guard.Call{Attempt: 1}, c.fn)
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.word) {
				t.Errorf("Run returned %v, want an ErrInvalidConfiguration naming %q", err, c.word)
			}
			if guard.IsRefusal(err) {
				t.Error("an invalid configuration is a refusal")
			}
		})
	}
	if len(g.calls) != 0 || len(g.outcomes) != 0 {
		t.Errorf("the guard was asked %+v and told %+v, want nothing", g.calls, g.outcomes)
	}
}

// If fn panics, Record is called with ErrPanicked before the panic goes
// on; a panic in Allow or Record goes on unchanged, Record called once at
// most.
func TestRunPanics(t *testing.T) {
	t.Run("in fn", func(t *testing.T) {
		g := &recorder{}
		var recordedBefore bool
		g.record = func(guard.Permit, guard.Outcome) { recordedBefore = true }
		v := recovered(func() {
			defer func() {
				if !recordedBefore {
					t.Error("the panic went on before Record was called")
				}
			}()
			_ = guard.Run(context.Background(), g, guard.Call{}, func(context.Context) error { panic("boom") })
		})
		if v != "boom" {
			t.Errorf("recovered %v, want fn's own panic", v)
		}
		if len(g.outcomes) != 1 || g.outcomes[0].Err != guard.ErrPanicked || g.permits[0].Token != 1 {
			t.Errorf("recorded %+v with %+v, want ErrPanicked once, with Allow's Permit", g.outcomes, g.permits)
		}
	})
	t.Run("in Allow", func(t *testing.T) {
		g := &recorder{allow: func(context.Context, guard.Call) error { panic("allow") }}
		calls := 0
		v := recovered(func() {
			_ = guard.Run(context.Background(), g, guard.Call{}, func(context.Context) error { calls++; return nil })
		})
		if v != "allow" || calls != 0 || len(g.outcomes) != 0 {
			t.Errorf("recovered %v after %d calls, outcomes %+v; want Allow's panic, no call, nothing recorded", v, calls, g.outcomes)
		}
	})
	t.Run("in Record", func(t *testing.T) {
		g := &recorder{record: func(guard.Permit, guard.Outcome) { panic("record") }}
		v := recovered(func() {
			_ = guard.Run(context.Background(), g, guard.Call{}, func(context.Context) error { return io.EOF })
		})
		if v != "record" || len(g.outcomes) != 1 || g.outcomes[0].Err != io.EOF {
			t.Errorf("recovered %v, outcomes %+v; want Record's panic, and the one outcome of the call", v, g.outcomes)
		}
	})
	if errors.Is(guard.ErrPanicked, backoff.ErrRefused) || guard.IsRefusal(guard.ErrPanicked) {
		t.Error("ErrPanicked is a refusal")
	}
}

// Outcome.Abandoned says whether ctx was done when fn returned.
func TestRunAbandoned(t *testing.T) {
	g := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_ = guard.Run(ctx, g, guard.Call{}, func(context.Context) error { return io.EOF })
	_ = guard.Run(ctx, g, guard.Call{}, func(ctx context.Context) error { cancel(); return ctx.Err() })
	want := []guard.Outcome{{Err: io.EOF}, {Err: context.Canceled, Abandoned: true}}
	if len(g.outcomes) != len(want) {
		t.Fatalf("outcomes %+v, want %+v", g.outcomes, want)
	}
	for i, o := range g.outcomes {
		if o != want[i] {
			t.Errorf("outcome %d: %+v, want %+v", i+1, o, want[i])
		}
	}
	// A deadline derived inside fn is fn's own: not abandoned.
	g = &recorder{}
	_ = guard.Run(context.Background(), g, guard.Call{}, func(ctx context.Context) error {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx.Err()
	})
	if o := g.outcomes[0]; o.Abandoned || o.Err != context.Canceled {
		t.Errorf("outcome %+v, want a failure, not abandoned", o)
	}
}

// A ctx already done is refused before the guard is asked: fn is not
// called, nothing is recorded, and the error matches backoff.ErrRefused and
// wraps the context's cause, as backoff.Do's refusal of such an attempt
// does. (guards_test.go holds every guard of the module to it.)
func TestRunContextDone(t *testing.T) {
	errStop := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	g := &recorder{}
	calls := 0
	err := guard.Run(ctx, g, guard.Call{Attempt: 2}, func(context.Context) error { calls++; return nil })
	if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, errStop) || !errors.Is(err, context.Canceled) == errors.Is(errStop, context.Canceled) {
		t.Errorf("Run returned %v, want a refusal wrapping the context's cause", err)
	}
	if err.Error() != errStop.Error() || !guard.IsRefusal(err) {
		t.Errorf("Run returned %q (IsRefusal %v), want the cause's message, as a refusal", err, guard.IsRefusal(err))
	}
	if calls != 0 || len(g.calls) != 0 || len(g.outcomes) != 0 {
		t.Errorf("%d calls, the guard asked %+v and told %+v; want nothing", calls, g.calls, g.outcomes)
	}
	// A driver that runs its operation at least once counts that attempt
	// as refused, as backoff.Do counts the attempt it does not start.
	for name, derr := range map[string]error{
		"RetryErrorCtx around Run": backoff.RetryErrorCtx(ctx, func() error {
			return guard.Run(ctx, g, guard.Call{Attempt: 1}, func(context.Context) error { calls++; return nil })
		}),
		"DoErr": backoff.DoErr(ctx, func(context.Context) error { calls++; return nil }),
	} {
		var e *backoff.Error
		if !errors.As(derr, &e) || e.Cause != errStop || e.Attempts != 0 || calls != 0 {
			t.Errorf("%s returned %#v after %d calls, want Cause the context's, no attempt", name, derr, calls)
		}
	}
}

// refusalOutcome returns the Outcome.Err an outer guard sees when a guard
// inside it refuses the call.
func refusalOutcome(t *testing.T) error {
	t.Helper()
	outer := &recorder{}
	_ = guard.Run(context.Background(), outer, guard.Call{}, func(ctx context.Context) error {
		return guard.Run(ctx, refuser(errReason), guard.Call{}, func(context.Context) error { return nil })
	})
	if len(outer.outcomes) != 1 {
		t.Fatalf("the outer guard was told %+v", outer.outcomes)
	}
	return outer.outcomes[0].Err
}

// driven returns the *backoff.Error of a retry driver whose attempts
// return the errors of errs, in order, the last repeated.
func driven(errs ...error) error {
	i := 0
	return backoff.DoErr(context.Background(), func(context.Context) error {
		err := errs[min(i, len(errs)-1)]
		i++
		return err
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(uint(len(errs))))
}

// IsRefusal: a refusal as an outer guard sees it, or a *backoff.Error whose
// Cause is one and which made no attempt; nothing else.
func TestIsRefusal(t *testing.T) {
	refusal := refusalOutcome(t)
	refusedAtOnce := driven(refusal)
	refusedLater := driven(io.EOF, refusal)
	var re *backoff.Error
	if !errors.As(refusedAtOnce, &re) || re.Attempts != 0 || !errors.As(refusedLater, &re) || re.Attempts != 1 {
		t.Fatalf("the driver's errors: %+v, %+v", refusedAtOnce, refusedLater)
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"an error", io.EOF, false},
		{"the guard's error itself", errReason, false},
		{"ErrRefused", backoff.ErrRefused, true},
		{"Run's refusal", refusal, true},
		{"a wrapped refusal", fmt.Errorf("calling the API: %w", refusal), true},
		{"a joined refusal", errors.Join(io.EOF, refusal), true},
		{"a run refused at its first attempt", refusedAtOnce, true},
		{"a wrapped run refused at its first attempt", fmt.Errorf("fetch: %w", refusedAtOnce), true},
		{"a joined run refused at its first attempt", errors.Join(io.EOF, refusedAtOnce), true},
		{"a run refused after an attempt", refusedLater, false},
		{"a wrapped run refused after an attempt", fmt.Errorf("fetch: %w", refusedLater), false},
		{"an *Error with no attempt, not refused", &backoff.Error{Cause: backoff.ErrExhausted}, false},
		{"an *Error with no attempt, refused", &backoff.Error{Cause: refusal}, true},
		{"an *Error with attempts, refused", &backoff.Error{Cause: refusal, LastErr: io.EOF, Attempts: 2}, false},
		{"an *Error whose LastErr is a refusal", &backoff.Error{Cause: backoff.ErrExhausted, LastErr: refusal}, false},
		{"an injected failure", guard.Failure(io.EOF), false},
		{"an invalid configuration", backoff.ErrInvalidConfiguration, false},
	}
	for _, c := range cases {
		if got := guard.IsRefusal(c.err); got != c.want {
			t.Errorf("%s: IsRefusal(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// IsRefusal, which a guard may ask of every call it records, allocates
// nothing.
func TestIsRefusalAllocatesNothing(t *testing.T) {
	refusal := refusalOutcome(t)
	for name, err := range map[string]error{
		"the outer guard's Outcome.Err":  refusal,
		"an *Error with no attempt":      driven(refusal),
		"an *Error with attempts":        driven(io.EOF, refusal),
		"a wrapped *Error":               fmt.Errorf("fetch: %w", driven(refusal)),
		"a joined error":                 errors.Join(io.EOF, refusal),
		"an *Error of an exhausted run":  &backoff.Error{Cause: backoff.ErrExhausted, LastErr: io.EOF, Attempts: 3},
		"an error that is not a refusal": io.EOF,
		"an error the guard returned":    errReason,
		"a refusal that says so itself":  refusedErr{},
		"a refusal wrapping ErrRefused":  fmt.Errorf("%w: budget spent", backoff.ErrRefused),
	} {
		want := guard.IsRefusal(err)
		if n := testing.AllocsPerRun(100, func() {
			if guard.IsRefusal(err) != want {
				t.Fatal("IsRefusal changed its answer")
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per IsRefusal, want 0", name, n)
		}
	}
}

// Run allocates nothing for an admitted call of a guard that allocates
// nothing itself.
func TestRunAllocatesNothing(t *testing.T) {
	var g nop
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	if n := testing.AllocsPerRun(100, func() { _ = guard.Run(ctx, g, guard.Call{Attempt: 1}, fn) }); n != 0 {
		t.Errorf("%v allocations per admitted call, want 0", n)
	}
}

// nop admits everything.
type nop struct{}

func (nop) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (nop) Record(guard.Permit, guard.Outcome)                      {}

// Run holds no lock of its own while fn runs: calls under one guard run at
// once, and each is recorded (run with -race).
func TestRunConcurrently(t *testing.T) {
	g := &recorder{}
	const n = 8
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = guard.Run(context.Background(), g, guard.Call{Attempt: 1}, func(context.Context) error {
				started.Done()
				release.Wait() // every call is in fn at once
				return nil
			})
		}()
	}
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	hang := time.NewTimer(spectest.Guard)
	defer hang.Stop()
	select {
	case <-all:
	case <-hang.C:
		release.Done()
		t.Fatal("the calls did not all reach fn: Run holds a lock while fn runs")
	}
	release.Done()
	wg.Wait()
	tokens := map[uint64]bool{}
	for _, p := range g.permits {
		tokens[p.Token] = true
	}
	if len(g.outcomes) != n || len(tokens) != n {
		t.Errorf("%d outcomes with %d distinct permits, want %d of each", len(g.outcomes), len(tokens), n)
	}
}
