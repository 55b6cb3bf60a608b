package throttle

import (
	"math"
	"testing"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/internal/window"
)

// TestInvalidConfiguration checks that every bad setting is reported by
// Validate, naming the option, refuses every call, and fails a Policy
// before it runs anything.
func TestInvalidConfiguration(t *testing.T) {
	cases := []struct {
		name string
		th   *Throttle
		want string // in the error
	}{
		{"k_below_1", New(WithK(0.99)), "WithK"},
		{"k_zero", New(WithK(0)), "WithK"},
		{"k_negative", New(WithK(-2)), "WithK"},
		{"k_nan", New(WithK(math.NaN())), "WithK"},
		{"k_inf", New(WithK(math.Inf(1))), "WithK"},
		{"window_zero", New(WithWindow(0)), "WithWindow"},
		{"window_negative", New(WithWindow(-time.Minute)), "WithWindow"},
		{"window_too_short", New(WithWindow(MinWindow - 1)), "WithWindow"},
		{"offset_negative", New(WithWindowOffset(-time.Nanosecond)), "WithWindowOffset"},
		{"offset_a_window", New(WithWindowOffset(DefaultWindow)), "shorter than the window"},
		{"offset_past_a_set_window", New(WithWindowOffset(time.Second), WithWindow(time.Second)), "shorter than the window"},
		{"max_rejection_zero", New(WithMaxRejection(0)), "WithMaxRejection(0)"},
		{"max_rejection_above_1", New(WithMaxRejection(1.01)), "WithMaxRejection(1.01)"},
		{"max_rejection_nan", New(WithMaxRejection(math.NaN())), "WithMaxRejection(NaN)"},
		{"min_rate_negative", New(WithMinRate(-1)), "WithMinRate(-1)"},
		{"min_rate_nan", New(WithMinRate(math.NaN())), "WithMinRate(NaN)"},
		{"min_rate_inf", New(WithMinRate(math.Inf(1))), "WithMinRate(+Inf)"},
		{"accepted_nil", New(WithAccepted(nil)), "WithAccepted"},
		{"random_nil", New(WithRandom(nil)), "WithRandom"},
		{"clock_nil", New(WithClock(nil)), "WithClock"},
		{"option_nil", New(nil), "nil"},
		{"first_reported", New(WithK(0), WithWindow(0)), "WithK"},
		{"zero_value", &Throttle{}, "zero"},
		{"nil", nil, "nil Throttle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			guardtest.Refuses(t, tc.th, guardtest.Invalid(t, tc.th, tc.want))
			tc.th.Record(guard.Permit{}, guard.Outcome{}) // no panic
			if s := tc.th.Stats(); s != (Stats{}) {
				t.Fatalf("Stats = %+v, want zero", s)
			}
		})
	}
}

// TestValidConfigurations checks settings at the edges of their ranges.
func TestValidConfigurations(t *testing.T) {
	for name, th := range map[string]*Throttle{
		"defaults":   New(),
		"k_1":        New(WithK(1)),
		"k_large":    New(WithK(1e300)),
		"min_window": New(WithWindow(MinWindow)),
		"long":       New(WithWindow(24 * time.Hour)),
	} {
		t.Run(name, func(t *testing.T) {
			if err := th.Validate(); err != nil {
				t.Fatal(err)
			}
			if !call(t, th, guard.Outcome{}) {
				t.Fatal("the first call rejected")
			}
		})
	}
}

// TestDefaults checks the documented defaults: K = 2 over 2 minutes.
func TestDefaults(t *testing.T) {
	th := New(WithClock(newMock()), WithRandom(never))
	load(t, th, 10, 4)
	if got := th.Stats().Probability; got != 2.0/11 {
		t.Fatalf("probability = %v, want (10 − 2·4)/11", got)
	}
	if th.w.Width()*window.Slots != 2*time.Minute {
		t.Fatalf("window = %v, want 2m", th.w.Width()*window.Slots)
	}
}
