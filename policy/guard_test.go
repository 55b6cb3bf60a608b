package policy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// A refusal ends the call: the retry stage around the guard stops at once
// with the refusal as its Cause (an error matching ErrRefused that wraps
// the guard's) and the last real error as LastErr, and the guard is not
// asked to record a call it refused.
func TestGuardRefusal(t *testing.T) {
	var events []string
	g := &guardLog{name: "g", events: &events, refuse: func(c guard.Call) error {
		if c.Attempt >= 3 {
			return errRefusedSpec
		}
		return nil
	}}
	op := spectest.Always()
	p := policy.New(policy.Retry(zero(), backoff.WithMaxTries(10)), policy.Guard(g))
	res, err := policy.Do(context.Background(), p, run(op))
	re := checkStop(t, err, errRefusedSpec, spectest.AttemptErr(2))
	if re.Attempts != 2 || op.Count() != 2 || res != 2 {
		t.Errorf("Attempts %d, calls %d, result %d; want 2 attempts (the refused one did not run), 2 calls, the last result 2", re.Attempts, op.Count(), res)
	}
	if !errors.Is(re.Cause, backoff.ErrRefused) || re.Cause == errRefusedSpec || re.Cause.Error() != errRefusedSpec.Error() {
		t.Errorf("Cause %#v, want the guard's error wrapped as a refusal, its message unchanged", re.Cause)
	}
	if want := []string{"g.allow(1)", "g.record(1)", "g.allow(2)", "g.record(2)", "g.allow(3)"}; !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if guard.IsRefusal(err) {
		t.Error("IsRefusal is true for a call whose attempts reached the dependency")
	}

	// Refused before anything ran, with no retry stage or outside it: the
	// Cause is the refusal, nothing ran, and IsRefusal says so.
	all := &guardLog{name: "all", refuse: func(guard.Call) error { return errRefusedSpec }}
	for name, p := range map[string]*policy.Policy{
		"no retry stage":         policy.New(policy.Guard(all)),
		"outside the retry":      policy.New(policy.Guard(all), policy.Retry()),
		"at the first attempt":   policy.New(policy.Retry(), policy.Guard(all)),
		"inside a timeout stage": policy.New(policy.Timeout(time.Hour), policy.Guard(all)),
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			err := p.DoErr(context.Background(), func(context.Context) error { calls++; return nil })
			re := checkStop(t, err, errRefusedSpec, nil)
			if calls != 0 || re.Attempts != 0 || !guard.IsRefusal(err) || !errors.Is(re.Cause, backoff.ErrRefused) {
				t.Errorf("calls %d, Attempts %d, IsRefusal %v, Cause %v; want 0, 0, true, a refusal", calls, re.Attempts, guard.IsRefusal(err), re.Cause)
			}
		})
	}
	if len(all.outcomes) != 0 {
		t.Errorf("a guard that refused every call was asked to record %+v", all.outcomes)
	}
}

// refusedErr is a guard's error that says itself that it is a refusal.
type refusedErr struct{}

func (refusedErr) Error() string        { return "refused already" }
func (refusedErr) Is(target error) bool { return target == backoff.ErrRefused }

// A guard's error that matches ErrRefused already is not wrapped again.
func TestGuardRefusalNotWrappedTwice(t *testing.T) {
	g := &guardLog{refuse: func(guard.Call) error { return refusedErr{} }}
	err := policy.New(policy.Retry(), policy.Guard(g)).DoErr(context.Background(), func(context.Context) error { return nil })
	if re := asError(t, err); re.Cause != (refusedErr{}) {
		t.Errorf("Cause %#v, want the guard's own error", re.Cause)
	}
}

// What a guard sees in Outcome: the call's error, an inner guard's refusal
// (IsRefusal), and Abandoned when its context was done, but not when a
// timeout stage inside it ran out.
func TestGuardOutcome(t *testing.T) {
	outer := &guardLog{name: "outer"}
	inner := &guardLog{name: "inner", refuse: func(guard.Call) error { return errRefusedSpec }}
	_ = policy.New(policy.Guard(outer), policy.Guard(inner)).DoErr(context.Background(), func(context.Context) error { return nil })
	if o := outer.outcomes[0]; !guard.IsRefusal(o.Err) || !errors.Is(o.Err, errRefusedSpec) || o.Abandoned {
		t.Errorf("outer guard saw %+v, want the inner refusal, not abandoned", o)
	}
	// Through a retry stage between them, the refusal of a first attempt
	// is still one; after an attempt that ran, it is not.
	outer = &guardLog{name: "outer"}
	_ = policy.New(policy.Guard(outer), policy.Retry(), policy.Guard(inner)).DoErr(context.Background(), func(context.Context) error { return nil })
	if o := outer.outcomes[0]; !guard.IsRefusal(o.Err) || !errors.Is(o.Err, errRefusedSpec) {
		t.Errorf("outer guard saw %+v, want the inner refusal through the retry stage", o)
	}
	outer = &guardLog{name: "outer"}
	second := &guardLog{name: "second", refuse: func(c guard.Call) error {
		if c.Attempt > 1 {
			return errRefusedSpec
		}
		return nil
	}}
	_ = policy.New(policy.Guard(outer), policy.Retry(zero()), policy.Guard(second)).DoErr(context.Background(), func(context.Context) error { return io.EOF })
	if o := outer.outcomes[0]; guard.IsRefusal(o.Err) || !errors.Is(o.Err, io.EOF) {
		t.Errorf("outer guard saw %+v, want a failure that reached the dependency", o)
	}

	g := &guardLog{name: "g"}
	ctx, cancel := context.WithCancel(context.Background())
	_ = policy.New(policy.Guard(g)).DoErr(ctx, func(context.Context) error { cancel(); return context.Canceled })
	if o := g.outcomes[0]; !o.Abandoned || !errors.Is(o.Err, context.Canceled) || guard.IsRefusal(o.Err) {
		t.Errorf("a call whose caller cancelled: %+v, want Abandoned", o)
	}
	g = &guardLog{name: "g"}
	_ = policy.New(policy.Guard(g)).DoErr(context.Background(), func(context.Context) error { return io.EOF })
	if o := g.outcomes[0]; o.Abandoned || o.Err != io.EOF {
		t.Errorf("a call that failed: %+v, want its error, not abandoned", o)
	}

	// A timeout stage inside the guard: the dependency did not answer in
	// time, and the call is not abandoned. One outside: the caller's
	// deadline as the guard sees it, so the call is abandoned.
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name      string
			stages    func(g guard.Guard) []policy.Stage
			abandoned bool
		}{
			{"inside", func(g guard.Guard) []policy.Stage {
				return []policy.Stage{policy.Guard(g), policy.Timeout(time.Second)}
			}, false},
			{"outside", func(g guard.Guard) []policy.Stage {
				return []policy.Stage{policy.Timeout(time.Second), policy.Guard(g)}
			}, true},
		} {
			g := &guardLog{name: "g"}
			_ = policy.New(c.stages(g)...).DoErr(context.Background(), slow)
			if o := g.outcomes[0]; o.Abandoned != c.abandoned || !errors.Is(o.Err, context.DeadlineExceeded) {
				t.Errorf("a call that ran out of a timeout stage %s the guard: %+v, want Abandoned %v", c.name, o, c.abandoned)
			}
		}
	})
}

// A call that panics through a guard is recorded before the panic goes on,
// so that the guard holds nothing for it.
func TestGuardRecordsAPanic(t *testing.T) {
	g := &guardLog{name: "g"}
	p := policy.New(policy.Guard(g))
	if v := recovered(func() { _ = p.DoErr(context.Background(), func(context.Context) error { panic("boom") }) }); v != "boom" {
		t.Errorf("recovered %v, want the call's own panic", v)
	}
	if len(g.outcomes) != 1 || g.outcomes[0].Err != guard.ErrPanicked {
		t.Fatalf("outcomes %+v, want one ErrPanicked recorded for the panic", g.outcomes)
	}
	// Under a Recover stage outside the guard: recorded as a panic, and the
	// call returns a *PanicError.
	g = &guardLog{name: "g"}
	err := policy.New(policy.Recover(), policy.Guard(g)).DoErr(context.Background(), func(context.Context) error { panic(io.EOF) })
	var pe *policy.PanicError
	if !errors.As(err, &pe) || len(g.outcomes) != 1 || g.outcomes[0].Err != guard.ErrPanicked {
		t.Errorf("err %v, outcomes %+v; want a *PanicError, and ErrPanicked recorded", err, g.outcomes)
	}
	// Under a Recover stage inside it, the panic is an error the guard
	// sees as such.
	g = &guardLog{name: "g"}
	err = policy.New(policy.Guard(g), policy.Recover()).DoErr(context.Background(), func(context.Context) error { panic(io.EOF) })
	if !errors.As(err, &pe) || !errors.As(g.outcomes[0].Err, &pe) || !errors.Is(err, io.EOF) {
		t.Errorf("err %v, outcome %+v; want a *PanicError wrapping io.EOF for both", err, g.outcomes)
	}
}

// An error a guard marks with Failure is the call's own failure: the
// function is not called, and a retry stage around it retries it.
func TestGuardFailureIsRetried(t *testing.T) {
	injected := errors.New("injected")
	g := &guardLog{name: "g", refuse: func(c guard.Call) error {
		if c.Attempt < 3 {
			return guard.Failure(injected)
		}
		return nil
	}}
	calls := 0
	v, err := policy.Do(context.Background(), policy.New(policy.Retry(zero()), policy.Guard(g)),
		func(context.Context) (int, error) { calls++; return 7, nil })
	if err != nil || v != 7 || calls != 1 {
		t.Errorf("(%d, %v) after %d calls; want (7, nil) after 1, the injected failures retried", v, err, calls)
	}
	calls = 0
	err = policy.New(policy.Retry(zero(), backoff.WithMaxTries(2)), policy.Guard(&guardLog{refuse: func(guard.Call) error {
		return guard.Failure(injected)
	}})).DoErr(context.Background(), func(context.Context) error { calls++; return nil })
	re := checkStop(t, err, backoff.ErrExhausted, injected)
	if re.LastErr != injected || re.Attempts != 2 || calls != 0 || guard.IsRefusal(err) {
		t.Errorf("LastErr %#v, Attempts %d, calls %d; want the injected error itself, 2 attempts, no call, no refusal", re.LastErr, re.Attempts, calls)
	}
	// An outer guard counts it as the call's failure.
	outer := &guardLog{}
	_ = policy.New(policy.Guard(outer), policy.Guard(&guardLog{refuse: func(guard.Call) error { return guard.Failure(injected) }})).
		DoErr(context.Background(), func(context.Context) error { return nil })
	if o := outer.outcomes[0]; o.Err != injected || guard.IsRefusal(o.Err) {
		t.Errorf("the outer guard saw %+v, want the injected failure", o)
	}
}

// A Guard that cannot be used fails the Policy before anything runs, with
// a Cause that matches ErrInvalidConfiguration whatever its Validate
// returned.
func TestGuardValidatedByThePolicy(t *testing.T) {
	calls := 0
	errInvalid := fmt.Errorf("%w: the guard's capacity is 0", backoff.ErrInvalidConfiguration)
	errPlain := errors.New("the guard's capacity is 0")
	for _, s := range []policy.Stage{
		policy.Guard(nil),
		policy.Guard((*guardLog)(nil)),
		policy.Guard(&invalidGuard{err: errInvalid}),
		policy.Guard(&invalidGuard{err: errPlain}),
	} {
		err := policy.New(policy.Retry(), s).DoErr(context.Background(), func(context.Context) error { calls++; return nil })
		if re := asError(t, err); !errors.Is(re.Cause, backoff.ErrInvalidConfiguration) {
			t.Errorf("Cause %v, want ErrInvalidConfiguration", re.Cause)
		}
	}
	if calls != 0 {
		t.Errorf("%d calls through an invalid Policy", calls)
	}
	// The guard's own error is kept.
	err := policy.New(policy.Guard(&invalidGuard{err: errPlain})).DoErr(context.Background(), func(context.Context) error { return nil })
	if re := asError(t, err); !errors.Is(re.Cause, errPlain) {
		t.Errorf("Cause %v, want it to wrap the guard's %v", re.Cause, errPlain)
	}
	err = policy.New(policy.Guard(&invalidGuard{err: errInvalid})).DoErr(context.Background(), func(context.Context) error { return nil })
	if re := asError(t, err); !errors.Is(re.Cause, errInvalid) || re.Cause.Error() != "stage 1: "+errInvalid.Error() {
		t.Errorf("Cause %q, want the guard's %q, named by its stage, not wrapped again", re.Cause, errInvalid)
	}
	// A valid guard that implements Validator serves.
	if err := policy.New(policy.Guard(&invalidGuard{})).DoErr(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Errorf("a guard whose Validate returns nil: %v", err)
	}
}
