package breaker_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
)

// NewFleetFallback reads the options as New does: its defaults, each trip
// rule as package fleet names it, and every setting a shared breaker keeps.
func TestNewFleetFallbackSettings(t *testing.T) {
	clk := clock.NewMock()
	for _, c := range []struct {
		name string
		opts []breaker.Option
		want fleet.Breaker
	}{
		{"defaults", nil, fleet.Breaker{
			Rule: fleet.Consecutive, Threshold: breaker.DefaultConsecutiveFailures,
			Open: breaker.DefaultOpenDuration, Probes: breaker.DefaultProbes, Successes: breaker.DefaultProbeSuccesses,
		}},
		{"failures in a row", []breaker.Option{breaker.WithConsecutiveFailures(3), breaker.WithOpenDuration(7 * time.Second), breaker.WithHalfOpen(4, 2), breaker.WithClock(clk)}, fleet.Breaker{
			Rule: fleet.Consecutive, Threshold: 3, Open: 7 * time.Second, Probes: 4, Successes: 2, Clock: clk,
		}},
		{"rate of calls, slow calls", []breaker.Option{breaker.WithFailureRate(0.5, 10, 20), breaker.WithSlowCalls(time.Second, 0.3), breaker.WithClock(clk)}, fleet.Breaker{
			Rule: fleet.RateOfCalls, Threshold: breaker.DefaultConsecutiveFailures, Rate: 0.5, MinCalls: 10, Calls: 20, SlowAfter: time.Second, SlowRate: 0.3,
			Open: breaker.DefaultOpenDuration, Probes: breaker.DefaultProbes, Successes: breaker.DefaultProbeSuccesses, Clock: clk,
		}},
		{"rate over time", []breaker.Option{breaker.WithFailureRateOver(0.25, 5, time.Minute), breaker.WithClock(clk)}, fleet.Breaker{
			Rule: fleet.RateOverTime, Threshold: breaker.DefaultConsecutiveFailures, Rate: 0.25, MinCalls: 5, Period: time.Minute,
			Open: breaker.DefaultOpenDuration, Probes: breaker.DefaultProbes, Successes: breaker.DefaultProbeSuccesses, Clock: clk,
		}},
		{"a growing open duration", []breaker.Option{breaker.WithOpenBackOff(&backoff.ConstantBackOff{Interval: time.Second}), breaker.WithClock(clk)}, fleet.Breaker{
			Rule: fleet.Consecutive, Threshold: breaker.DefaultConsecutiveFailures,
			Open: breaker.DefaultOpenDuration, Probes: breaker.DefaultProbes, Successes: breaker.DefaultProbeSuccesses, Clock: clk,
			Unshared: "WithOpenBackOff",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, s := breaker.NewFleetFallback(c.opts...)
			if err := b.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.IsFailure != nil || s.OnChange != nil {
				t.Errorf("a classifier or hook that was not given: %v %v", s.IsFailure != nil, s.OnChange != nil)
			}
			if c.want.Clock == nil {
				if s.Clock == nil {
					t.Error("no clock")
				}
				s.Clock = nil
			}
			s.IsFailure, s.OnChange = nil, nil
			if !reflect.DeepEqual(s, c.want) {
				t.Errorf("settings\n got %+v\nwant %+v", s, c.want)
			}
		})
	}
}

// The classifier and the state-change hook move from the fallback to the
// shared breaker: the fallback counts an error the classifier would not
// have as a failure, and trips without calling the hook, which the
// settings carry, with the states as uint8 values of State.
func TestNewFleetFallbackTakesClassifierAndHook(t *testing.T) {
	benign := errors.New("benign")
	type change struct{ from, to breaker.State }
	var changes []change
	b, s := breaker.NewFleetFallback(
		breaker.WithConsecutiveFailures(1),
		breaker.WithIsFailure(func(err error) bool { return !errors.Is(err, benign) }),
		breaker.WithStateChange(func(from, to breaker.State) { changes = append(changes, change{from, to}) }),
	)
	p, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Record(p, guard.Outcome{Err: benign})
	if b.State() != breaker.Open {
		t.Errorf("the fallback is %v after an error its classifier was taken from; want open", b.State())
	}
	if len(changes) != 0 {
		t.Errorf("the fallback called the hook it was taken from: %v", changes)
	}
	if s.IsFailure == nil || s.IsFailure(benign) || !s.IsFailure(errors.New("down")) {
		t.Error("the settings do not carry the classifier given")
	}
	if s.OnChange == nil {
		t.Fatal("the settings do not carry the hook given")
	}
	s.OnChange(uint8(breaker.Closed), uint8(breaker.Open))
	if want := []change{{breaker.Closed, breaker.Open}}; len(changes) != 1 || changes[0] != want[0] {
		t.Errorf("the settings' hook reported %v, want %v", changes, want)
	}

	// New keeps both: the benign error neither trips it nor calls the hook.
	changes = nil
	n := breaker.New(
		breaker.WithConsecutiveFailures(1),
		breaker.WithIsFailure(func(err error) bool { return !errors.Is(err, benign) }),
		breaker.WithStateChange(func(from, to breaker.State) { changes = append(changes, change{from, to}) }),
	)
	p, _ = n.Allow(context.Background(), guard.Call{Attempt: 1})
	n.Record(p, guard.Outcome{Err: benign})
	if n.State() != breaker.Closed || len(changes) != 0 {
		t.Errorf("New's breaker: %v, changes %v; want closed, none", n.State(), changes)
	}
}

// A bad option is the fallback's Validate error, New's own.
func TestNewFleetFallbackBadOption(t *testing.T) {
	opts := []breaker.Option{breaker.WithOpenDuration(-time.Second)}
	b, _ := breaker.NewFleetFallback(opts...)
	err := b.Validate()
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Validate = %v, want an invalid configuration", err)
	}
	if want := breaker.New(opts...).Validate(); err.Error() != want.Error() {
		t.Errorf("Validate = %q, want New's %q", err, want)
	}
}
