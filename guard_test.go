package backoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"
)

// specGuard is a recording Guard: it admits every call unless refuse says
// otherwise, and logs its calls into a shared event log.
type specGuardLog struct {
	mu       sync.Mutex
	name     string
	events   *[]string
	refuse   func(c Call) error
	outcomes []Outcome
	token    uint64
}

func (g *specGuardLog) log(e string) {
	if g.events != nil {
		*g.events = append(*g.events, e)
	}
}

func (g *specGuardLog) Allow(_ context.Context, c Call) (Permit, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log(fmt.Sprintf("%s.allow(%d)", g.name, c.Attempt))
	if g.refuse != nil {
		if err := g.refuse(c); err != nil {
			return Permit{}, err
		}
	}
	g.token++
	return Permit{Token: g.token}, nil
}

func (g *specGuardLog) Record(p Permit, o Outcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log(fmt.Sprintf("%s.record(%d)", g.name, p.Token))
	g.outcomes = append(g.outcomes, o)
}

var errSpecRefused = errors.New("spec: refused")

// A refusal ends the call: the retry stage around the guard stops at once
// with the guard's error as its Cause and the last real error as LastErr,
// and the guard is not asked to record a call it refused.
func TestGuardRefusal(t *testing.T) {
	var events []string
	g := &specGuardLog{name: "g", events: &events, refuse: func(c Call) error {
		if c.Attempt >= 3 {
			return errSpecRefused
		}
		return nil
	}}
	op := specAlways()
	p := NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{}), WithMaxTries(10)), WithGuard(g))
	res, err := Execute(context.Background(), p, func(context.Context) (int, error) { return op.run() })
	re := specCheckStop(t, err, errSpecRefused, attemptErr(2))
	if re.Attempts != 2 || op.count() != 2 || res != 2 {
		t.Errorf("Attempts %d, calls %d, result %d; want 2 attempts (the refused one did not run), 2 calls, the last result 2", re.Attempts, op.count(), res)
	}
	if want := []string{"g.allow(1)", "g.record(1)", "g.allow(2)", "g.record(2)", "g.allow(3)"}; !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if IsRefusal(err) {
		t.Error("IsRefusal is true for a run whose attempts reached the dependency")
	}

	// Refused before anything ran, with no retry stage: the Cause is the
	// guard's error, nothing ran, and IsRefusal says so.
	all := &specGuardLog{name: "all", refuse: func(Call) error { return errSpecRefused }}
	calls := 0
	err = NewPolicy(WithGuard(all)).Execute(context.Background(), func(context.Context) error { calls++; return nil })
	re = specCheckStop(t, err, errSpecRefused, nil)
	if calls != 0 || re.Attempts != 0 || !IsRefusal(err) {
		t.Errorf("calls %d, Attempts %d, IsRefusal %v; want 0, 0, true", calls, re.Attempts, IsRefusal(err))
	}
}

// What a guard sees in Outcome: the call's error, an inner guard's refusal
// (IsRefusal), and Abandoned when its context was done.
func TestGuardOutcome(t *testing.T) {
	outer := &specGuardLog{name: "outer"}
	inner := &specGuardLog{name: "inner", refuse: func(Call) error { return errSpecRefused }}
	_ = NewPolicy(WithGuard(outer), WithGuard(inner)).Execute(context.Background(), func(context.Context) error { return nil })
	if o := outer.outcomes[0]; !IsRefusal(o.Err) || !errors.Is(o.Err, errSpecRefused) || o.Abandoned {
		t.Errorf("outer guard saw %+v, want the inner refusal, not abandoned", o)
	}

	g := &specGuardLog{name: "g"}
	ctx, cancel := context.WithCancel(context.Background())
	_ = NewPolicy(WithGuard(g)).Execute(ctx, func(context.Context) error { cancel(); return context.Canceled })
	if o := g.outcomes[0]; !o.Abandoned || !errors.Is(o.Err, context.Canceled) || IsRefusal(o.Err) {
		t.Errorf("a call whose caller cancelled: %+v, want Abandoned", o)
	}

	// A timeout stage inside the guard: the dependency did not answer in
	// time, and the call is not abandoned.
	g = &specGuardLog{name: "g"}
	clk := newSpecClock()
	_ = NewPolicy(WithGuard(g), WithTimeoutClock(clk, time.Second)).Execute(context.Background(), func(ctx context.Context) error {
		clk.Add(time.Second)
		<-ctx.Done()
		return ctx.Err()
	})
	if o := g.outcomes[0]; o.Abandoned || !errors.Is(o.Err, context.DeadlineExceeded) {
		t.Errorf("a call that ran out of a timeout stage's time: %+v, want a failure, not abandoned", o)
	}
}

// A call that panics through a guard is recorded before the panic goes on,
// so that the guard holds nothing for it.
func TestGuardRecordsAPanic(t *testing.T) {
	g := &specGuardLog{name: "g"}
	p := NewPolicy(WithGuard(g))
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want the call's own panic", v)
			}
		}()
		_ = p.Execute(context.Background(), func(context.Context) error { panic("boom") })
	}()
	if len(g.outcomes) != 1 || g.outcomes[0].Err != ErrPanicked {
		t.Fatalf("outcomes %+v, want one ErrPanicked recorded for the panic", g.outcomes)
	}
	// Under WithRecover the panic is an error the guard sees as such.
	g = &specGuardLog{name: "g"}
	err := NewPolicy(WithGuard(g), WithRecover()).Execute(context.Background(), func(context.Context) error { panic(io.EOF) })
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.As(g.outcomes[0].Err, &pe) || !errors.Is(err, io.EOF) {
		t.Errorf("err %v, outcome %+v; want a *PanicError wrapping io.EOF for both", err, g.outcomes)
	}
}

// An error a guard marks with Failure is the call's own failure: the
// function is not called, and a retry stage around it retries it.
func TestGuardFailureIsRetried(t *testing.T) {
	injected := errors.New("injected")
	g := &specGuardLog{name: "g", refuse: func(c Call) error {
		if c.Attempt < 3 {
			return Failure(injected)
		}
		return nil
	}}
	calls := 0
	v, err := Execute(context.Background(), NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{})), WithGuard(g)),
		func(context.Context) (int, error) { calls++; return 7, nil })
	if err != nil || v != 7 || calls != 1 {
		t.Errorf("(%d, %v) after %d calls; want (7, nil) after 1, the injected failures retried", v, err, calls)
	}
	err = NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{}), WithMaxTries(2)), WithGuard(&specGuardLog{refuse: func(Call) error {
		return Failure(injected)
	}})).Execute(context.Background(), func(context.Context) error { calls++; return nil })
	specCheckStop(t, err, ErrExhausted, injected)
	if Failure(nil) != nil {
		t.Error("Failure(nil) is not nil")
	}
}

// A Guard that cannot be used fails the Policy before anything runs.
type invalidGuard struct{ specGuardLog }

func (*invalidGuard) Validate() error { return invalidf("invalidGuard is invalid") }

func TestGuardValidatedByThePolicy(t *testing.T) {
	calls := 0
	for _, s := range []Stage{WithGuard(nil), WithGuard((*specGuardLog)(nil)), WithGuard(&invalidGuard{})} {
		err := NewPolicy(s).Execute(context.Background(), func(context.Context) error { calls++; return nil })
		if re := specAsError(t, err); !errors.Is(re.Cause, ErrInvalidConfiguration) {
			t.Errorf("Cause %v, want ErrInvalidConfiguration", re.Cause)
		}
	}
	if calls != 0 {
		t.Errorf("%d calls through an invalid Policy", calls)
	}
}
