package policy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

var errNoRetry = errors.New("no retry")

// noRetries admits first attempts and refuses every retry, before the wait
// (Precheck) and after it (Allow); it counts each question.
type noRetries struct{ prechecks, allows int }

func (g *noRetries) Allow(_ context.Context, c guard.Call) (guard.Permit, error) {
	g.allows++
	if c.Attempt > 1 {
		return guard.Permit{}, errNoRetry
	}
	return guard.Permit{}, nil
}

func (g *noRetries) Record(guard.Permit, guard.Outcome) {}

func (g *noRetries) Precheck(c guard.Call) error {
	g.prechecks++
	if c.Attempt > 1 {
		return errNoRetry
	}
	return nil
}

// A guard.Prechecker inside a retry stage, directly or under a timeout, is
// asked before the wait, by both kinds of retry stage; one behind a
// fallback or a nested retry stage is asked after it, from Allow.
func TestPrecheckScope(t *testing.T) {
	errDown := errors.New("down")
	for _, tc := range []struct {
		name   string
		stages func(clk *spectest.Clock, g *noRetries) []policy.Stage
		before bool
	}{
		{"inside", func(clk *spectest.Clock, g *noRetries) []policy.Stage {
			return []policy.Stage{retry2s(clk), policy.Timeout(time.Hour), policy.Guard(g)}
		}, true},
		{"by kind", func(clk *spectest.Clock, g *noRetries) []policy.Stage {
			return []policy.Stage{policy.RetryByKind(func(error) string { return "down" }, map[string]int{"down": 3}, backoff.WithClock(clk), backoff.WithMaxTries(3),
				backoff.WithBackOff(backoff.NewConstantBackOff(2*time.Second))), policy.Guard(g)}
		}, true},
		{"behind a fallback", func(clk *spectest.Clock, g *noRetries) []policy.Stage {
			return []policy.Stage{retry2s(clk), policy.FallbackErr(func(_ context.Context, err error) error { return err }), policy.Guard(g)}
		}, false},
	} {
		clk := spectest.NewClock()
		g := &noRetries{}
		p := policy.New(tc.stages(clk, g)...)
		done := make(chan error, 1)
		go func() { done <- p.DoErr(context.Background(), func(context.Context) error { return errDown }) }()
		var err error
		select {
		case err = <-done:
			if !tc.before {
				t.Fatalf("%s: the call ended (%v) without the wait", tc.name, err)
			}
		case d := <-clk.Waits:
			if tc.before {
				t.Fatalf("%s: the call waited %v for a retry its guard refuses before the wait", tc.name, d)
			}
			clk.Add(d)
			err = <-done
		case <-time.After(spectest.Guard):
			t.Fatalf("%s: the call did not return", tc.name)
		}
		re := checkStop(t, err, errNoRetry, errDown)
		if re.Attempts != 1 {
			t.Errorf("%s: %d attempts, want 1", tc.name, re.Attempts)
		}
		if want := map[bool]int{true: 1, false: 2}[tc.before]; g.allows != want {
			t.Errorf("%s: Allow asked %d times, want %d", tc.name, g.allows, want)
		}
	}
}

// retry2s is a retry stage of at most 3 attempts, two seconds apart on clk.
func retry2s(clk *spectest.Clock) policy.Stage {
	return policy.Retry(backoff.WithClock(clk), backoff.WithMaxTries(3), backoff.WithBackOff(backoff.NewConstantBackOff(2*time.Second)))
}
