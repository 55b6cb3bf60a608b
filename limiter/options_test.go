package limiter_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/limiter"
)

// A bad configuration is reported by Validate, naming the setting; the
// Limiter refuses every call with that error, never admits one and never
// panics; policy.Guard reports it too.
func TestInvalidConfiguration(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	var typedNil *clock.Mock
	cases := []struct {
		name string
		l    *limiter.Limiter
		want string // in the message
	}{
		{"floor above the ceiling", limiter.New(limiter.WithFloor(50), limiter.WithCeiling(10)), "the floor (50) is above the ceiling (10)"},
		{"zero floor", limiter.New(limiter.WithFloor(0)), "WithFloor(0)"},
		{"negative floor", limiter.New(limiter.WithFloor(-1)), "WithFloor(-1)"},
		{"zero ceiling", limiter.New(limiter.WithCeiling(0)), "WithCeiling(0)"},
		{"ceiling too large", limiter.New(limiter.WithCeiling(limiter.MaxLimit + 1)), "WithCeiling"},
		{"zero initial limit", limiter.New(limiter.WithInitialLimit(0)), "WithInitialLimit(0)"},
		{"negative initial limit", limiter.New(limiter.WithInitialLimit(-5)), "WithInitialLimit(-5)"},
		{"initial limit above the ceiling", limiter.New(limiter.WithInitialLimit(30), limiter.WithCeiling(20)), "WithInitialLimit(30) is outside"},
		{"initial limit below the floor", limiter.New(limiter.WithInitialLimit(3), limiter.WithFloor(5)), "WithInitialLimit(3) is outside"},
		{"alpha above beta", limiter.New(limiter.WithVegas(6, 3)), "out of order"},
		{"zero alpha", limiter.New(limiter.WithVegas(0, 3)), "alpha"},
		{"negative beta", limiter.New(limiter.WithVegas(1, -3)), "beta"},
		{"NaN alpha", limiter.New(limiter.WithVegas(nan, 3)), "WithVegas(NaN, 3)"},
		{"infinite beta", limiter.New(limiter.WithVegas(3, inf)), "WithVegas(3, +Inf)"},
		{"tolerance below 1", limiter.New(limiter.WithGradient(0.5)), "WithGradient(0.5)"},
		{"NaN tolerance", limiter.New(limiter.WithGradient(nan)), "WithGradient(NaN)"},
		{"infinite tolerance", limiter.New(limiter.WithGradient(inf)), "WithGradient(+Inf)"},
		{"decrease of 1", limiter.New(limiter.WithDecrease(1)), "WithDecrease was given the factor 1; it must lie in (0, 1)"},
		{"decrease of 0", limiter.New(limiter.WithDecrease(0)), "WithDecrease was given the factor 0;"},
		{"NaN decrease", limiter.New(limiter.WithDecrease(nan)), "WithDecrease was given the factor NaN;"},
		{"infinite decrease", limiter.New(limiter.WithDecrease(-inf)), "WithDecrease was given the factor -Inf;"},
		{"zero window", limiter.New(limiter.WithWindow(0, 10)), "WithWindow(0s, 10)"},
		{"no samples", limiter.New(limiter.WithWindow(time.Second, 0)), "WithWindow(1s, 0)"},
		{"zero baseline", limiter.New(limiter.WithBaseline(0)), "WithBaseline(0s)"},
		{"baseline shorter than the window", limiter.New(limiter.WithBaseline(time.Second), limiter.WithWindow(2*time.Second, 10)), "shorter than the window"},
		{"negative queue", limiter.New(limiter.WithQueue(-1)), "WithQueue(-1)"},
		{"queue too large", limiter.New(limiter.WithQueue(limiter.MaxLimit + 1)), "WithQueue(2147483648) is outside [0, 2147483647]"},
		{"negative wait", limiter.New(limiter.WithQueue(1), limiter.WithMaxWait(-time.Second)), "WithMaxWait was given a negative duration (-1s)"},
		{"wait without a queue", limiter.New(limiter.WithMaxWait(time.Second)), "without WithQueue"},
		{"thresholds out of order", limiter.New(limiter.WithPriorityThresholds(0.9, 0.5)), "WithPriorityThresholds was given the low threshold 0.9, above the standard threshold 0.5"},
		{"zero low threshold", limiter.New(limiter.WithPriorityThresholds(0, 0.5)), "low threshold"},
		{"standard threshold above 1", limiter.New(limiter.WithPriorityThresholds(0.5, 1.5)), "standard threshold"},
		{"NaN threshold", limiter.New(limiter.WithPriorityThresholds(nan, 0.8)), "WithPriorityThresholds was given the low threshold NaN; it must lie in (0, 1]"},
		{"nil clock", limiter.New(limiter.WithClock(nil)), "nil clock"},
		{"typed nil clock", limiter.New(limiter.WithClock(typedNil)), "WithClock was given a nil *clock.Mock"},
		{"nil classifier", limiter.New(limiter.WithIsFailure(nil)), "nil classifier"},
		{"nil option", limiter.New(nil), "New was given a nil Option"},
		{"first error wins", limiter.New(limiter.WithFloor(0), limiter.WithQueue(-1)), "WithFloor(0)"},
		{"zero Limiter", new(limiter.Limiter), "zero or nil Limiter"},
		{"nil *Limiter", (*limiter.Limiter)(nil), "zero or nil Limiter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			guardtest.Refuses(t, c.l, guardtest.Invalid(t, c.l, c.want))
			c.l.Record(guard.Permit{}, guard.Outcome{}) // no panic, nothing to free
			if s := c.l.Stats(); s != (limiter.Stats{}) {
				t.Fatalf("Stats() = %+v, want zero", s)
			}
		})
	}
}

// A nil context is refused in the words every guard refuses it with,
// whether the Limiter can be used or not, and takes no place.
func TestNilContext(t *testing.T) {
	for name, l := range map[string]*limiter.Limiter{
		"usable":        limiter.New(limiter.WithInitialLimit(1), limiter.WithCeiling(1)),
		"misconfigured": limiter.New(limiter.WithFloor(0)),
		"zero":          {},
		"nil":           nil,
	} {
		t.Run(name, func(t *testing.T) {
			guardtest.RefusesNilContext(t, l, "limiter")
			if s := l.Stats(); s.InFlight != 0 || s.Canceled != 0 || s.Refused() != 0 {
				t.Fatalf("Stats() = %+v, want nothing counted", s)
			}
		})
	}
}

// The settings in range are accepted, edges included.
func TestValidConfiguration(t *testing.T) {
	for _, l := range []*limiter.Limiter{
		limiter.New(),
		limiter.New(limiter.WithFloor(1), limiter.WithCeiling(1), limiter.WithInitialLimit(1)),
		limiter.New(limiter.WithFloor(limiter.MaxLimit), limiter.WithCeiling(limiter.MaxLimit)),
		limiter.New(limiter.WithVegas(3, 3)),
		limiter.New(limiter.WithVegas(0.5, 100), limiter.WithGradient(1)), // the last algorithm wins
		limiter.New(limiter.WithDecrease(0.01), limiter.WithWindow(time.Nanosecond, 1), limiter.WithBaseline(time.Nanosecond)),
		limiter.New(limiter.WithQueue(limiter.MaxLimit), limiter.WithMaxWait(time.Hour)),
		limiter.New(limiter.WithPriorityThresholds(1, 1)),
		limiter.New(limiter.WithPriorityThresholds(0.01, 0.01)),
		limiter.New(limiter.WithIsFailure(func(error) bool { return true }), limiter.WithClock(clock.NewMock())),
	} {
		if err := l.Validate(); err != nil {
			t.Errorf("Validate() = %v", err)
		}
	}
}

// WithProbeInterval refuses a negative interval and one shorter than the
// window.
func TestProbeIntervalBounds(t *testing.T) {
	for _, l := range []*limiter.Limiter{
		limiter.New(limiter.WithProbeInterval(-time.Second)),
		limiter.New(limiter.WithProbeInterval(time.Millisecond), limiter.WithWindow(time.Second, 1)),
	} {
		if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "WithProbeInterval") {
			t.Errorf("Validate = %v, want an error naming WithProbeInterval", err)
		}
	}
	if err := limiter.New(limiter.WithProbeInterval(time.Minute)).Validate(); err != nil {
		t.Errorf("a probe every minute: %v", err)
	}
}
