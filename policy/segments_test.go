package policy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// Many guards inside one retry stage, more than one frame keeps: each is
// asked in order and told the outcome in reverse, on every attempt, with
// the attempt's number.
func TestManyGuardsInOneRetryStage(t *testing.T) {
	var events []string
	stages := []policy.Stage{policy.Retry(zero())}
	var guards []*guardLog
	for i := range 7 {
		g := &guardLog{name: fmt.Sprint("g", i), events: &events}
		guards = append(guards, g)
		stages = append(stages, policy.Guard(g))
	}
	op := spectest.FailThenSucceed(1)
	if v, err := policy.Do(context.Background(), policy.New(stages...), run(op)); err != nil || v != 100 {
		t.Fatalf("(%d, %v), want (100, nil)", v, err)
	}
	var want []string
	for attempt := 1; attempt <= 2; attempt++ {
		for i := range 7 {
			want = append(want, fmt.Sprintf("g%d.allow(%d)", i, attempt))
		}
		for i := 6; i >= 0; i-- {
			want = append(want, fmt.Sprintf("g%d.record(%d)", i, attempt))
		}
	}
	if !slices.Equal(events, want) {
		t.Errorf("events\n%v\nwant\n%v", events, want)
	}
	for _, g := range guards {
		if len(g.outcomes) != 2 || !errors.Is(g.outcomes[0].Err, spectest.AttemptErr(1)) || g.outcomes[1].Err != nil {
			t.Errorf("%s was told %+v, want the first attempt's error, then success", g.name, g.outcomes)
		}
	}
}

// A guard that refuses among many: the guards before it are told the
// refusal, the ones after it are not asked, and the retry stage stops
// with the refusal as its Cause.
func TestRefusalAmongManyGuards(t *testing.T) {
	var events []string
	stages := []policy.Stage{policy.Retry(zero())}
	for i := range 6 {
		g := &guardLog{name: fmt.Sprint("g", i), events: &events}
		if i == 5 {
			g.refuse = func(c guard.Call) error {
				if c.Attempt == 2 {
					return errRefusedSpec
				}
				return nil
			}
		}
		stages = append(stages, policy.Guard(g))
	}
	err := policy.New(stages...).DoErr(context.Background(), func(context.Context) error { return io.EOF })
	if re := checkStop(t, err, errRefusedSpec, io.EOF); re.Attempts != 1 {
		t.Errorf("Attempts %d, want 1", re.Attempts)
	}
	tail := events[12:]
	want := []string{"g0.allow(2)", "g1.allow(2)", "g2.allow(2)", "g3.allow(2)", "g4.allow(2)", "g5.allow(2)",
		"g4.record(2)", "g3.record(2)", "g2.record(2)", "g1.record(2)", "g0.record(2)"}
	if !slices.Equal(tail, want) {
		t.Errorf("the second attempt's events %v, want %v", tail, want)
	}
}

// A guard that answers before the wait is asked so wherever it stands
// inside the retry stage, past the guards one frame keeps and past a
// Recover stage; one behind a fallback is not.
func TestPrecheckAcrossSegments(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before int // guards before the Prechecker
		extra  []policy.Stage
		asked  bool
	}{
		{"the sixth guard", 5, nil, true},
		{"behind a Recover stage", 1, []policy.Stage{policy.Recover()}, true},
		{"behind a fallback", 1, []policy.Stage{policy.FallbackErr(func(_ context.Context, err error) error { return err })}, false},
	} {
		clk := spectest.NewClock()
		g := &noRetries{}
		stages := []policy.Stage{retry2s(clk)}
		for range tc.before {
			stages = append(stages, policy.Guard(nopGuard{}))
		}
		stages = append(stages, tc.extra...)
		stages = append(stages, policy.Guard(g))
		done := make(chan error, 1)
		go func() {
			done <- policy.New(stages...).DoErr(context.Background(), func(context.Context) error { return io.EOF })
		}()
		select {
		case err := <-done:
			if !tc.asked {
				t.Fatalf("%s: the call ended (%v) without the wait", tc.name, err)
			}
			checkStop(t, err, errNoRetry, io.EOF)
		case d := <-clk.Waits:
			if tc.asked {
				t.Fatalf("%s: the call waited %v for a retry its guard refuses before the wait", tc.name, d)
			}
			clk.Add(d)
			checkStop(t, <-done, errNoRetry, io.EOF)
		case <-time.After(spectest.Guard):
			t.Fatalf("%s: the call did not return", tc.name)
		}
		if (g.prechecks > 0) != tc.asked {
			t.Errorf("%s: Precheck asked %d times", tc.name, g.prechecks)
		}
	}
}

// panicRecord is a guard whose Record panics, once, on a call that
// panicked.
type panicRecord struct{ guardLog }

func (g *panicRecord) Record(p guard.Permit, o guard.Outcome) {
	g.guardLog.Record(p, o)
	if o.Err == guard.ErrPanicked {
		panic("record")
	}
}

// A panic that goes through the stages releases each of them, even when a
// guard's Record panics in turn: the guards outside it are told the call
// panicked, the deadlines around them end, and the latest panic goes on.
func TestPanicReleasesEveryStage(t *testing.T) {
	outer, inner := &guardLog{name: "outer"}, &panicRecord{guardLog{name: "inner"}}
	var attemptCtx context.Context
	p := policy.New(policy.Guard(outer), policy.Timeout(time.Hour), policy.Retry(zero()),
		policy.Guard(outer), policy.Timeout(time.Hour), policy.Guard(inner))
	got := recovered(func() {
		_ = p.DoErr(context.Background(), func(ctx context.Context) error {
			attemptCtx = ctx
			panic("boom")
		})
	})
	if got != "record" {
		t.Errorf("recovered %v, want the panic of the inner guard's Record", got)
	}
	if len(outer.outcomes) != 2 || outer.outcomes[0].Err != guard.ErrPanicked || outer.outcomes[1].Err != guard.ErrPanicked {
		t.Errorf("the outer guard was told %+v, want ErrPanicked for both its stages", outer.outcomes)
	}
	if attemptCtx == nil || attemptCtx.Err() == nil {
		t.Error("the attempt's deadline is still live after the panic")
	}
}

// A fallback that panics: the guards around it are told the call
// panicked, and the panic goes on to the caller.
func TestPanickingFallbackReleasesTheGuardsAround(t *testing.T) {
	g := &guardLog{name: "g"}
	p := policy.New(policy.Guard(g), policy.FallbackErr(func(context.Context, error) error { panic("fallback") }), policy.Retry(backoff.WithMaxTries(1)))
	if got := recovered(func() { _ = p.DoErr(context.Background(), func(context.Context) error { return io.EOF }) }); got != "fallback" {
		t.Errorf("recovered %v, want the fallback's panic", got)
	}
	if len(g.outcomes) != 1 || g.outcomes[0].Err != guard.ErrPanicked {
		t.Errorf("the guard was told %+v, want ErrPanicked", g.outcomes)
	}
}

// A Recover stage between guards inside a retry stage: the guard inside
// it is told the call panicked, the one outside it sees the *PanicError,
// and the retry stage retries it; what the stage itself calls (its kind
// function) is not inside the Recover stage.
func TestRecoverBetweenGuards(t *testing.T) {
	outer, inner := &guardLog{name: "outer"}, &guardLog{name: "inner"}
	calls := 0
	err := policy.New(policy.Retry(zero()), policy.Guard(outer), policy.Recover(), policy.Guard(inner)).
		DoErr(context.Background(), func(context.Context) error {
			if calls++; calls == 1 {
				panic("boom")
			}
			return nil
		})
	if err != nil || calls != 2 {
		t.Fatalf("%v after %d calls, want success at the second", err, calls)
	}
	var pe *policy.PanicError
	if len(inner.outcomes) != 2 || inner.outcomes[0].Err != guard.ErrPanicked {
		t.Errorf("the inner guard was told %+v, want ErrPanicked first", inner.outcomes)
	}
	if len(outer.outcomes) != 2 || !errors.As(outer.outcomes[0].Err, &pe) || pe.Value != "boom" || outer.outcomes[1].Err != nil {
		t.Errorf("the outer guard was told %+v, want the *PanicError, then success", outer.outcomes)
	}
	got := recovered(func() {
		_ = policy.New(policy.RetryByKind(func(error) string { panic("kind") }, map[string]int{"x": 2}), policy.Recover()).
			DoErr(context.Background(), func(context.Context) error { return io.EOF })
	})
	if got != "kind" {
		t.Errorf("recovered %v, want the kind function's panic, which no Recover stage inside the retry stage sees", got)
	}
}
