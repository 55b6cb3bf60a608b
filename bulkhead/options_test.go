package bulkhead_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// A bad capacity and a bad option are both reported: neither masks the
// other.
func TestCapacityAndOptionBothReported(t *testing.T) {
	for option, g := range map[string]bulkheadGuard{
		"WithQueue(-1)":        bulkhead.New(0, bulkhead.WithQueue(-1)),
		"nil PriorityOption":   bulkhead.NewPriority(0, nil),
		"low threshold 2":      bulkhead.NewPriority(0, bulkhead.WithThresholds(2, 1)),
		"above the standard":   bulkhead.NewPriority(0, bulkhead.WithThresholds(0.9, 0.8)),
		"standard threshold 0": bulkhead.NewPriority(-1, bulkhead.WithThresholds(0.5, 0), bulkhead.WithThresholds(2, 1)),
	} {
		err := g.Validate()
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "capacity") ||
			!strings.Contains(err.Error(), option) {
			t.Errorf("Validate() = %v, want the capacity and %q both named", err, option)
		}
	}
}

// A bad configuration is reported by Validate, naming the setting, and
// refuses every call with that error; policy.Guard reports it too.
func TestInvalidConfiguration(t *testing.T) {
	cases := []struct {
		name string
		g    bulkheadGuard
		want string // in the message
	}{
		{"zero capacity", bulkhead.New(0), "New(0)"},
		{"negative capacity", bulkhead.New(-3), "New(-3)"},
		{"capacity too large", bulkhead.New(bulkhead.MaxCapacity + 1), "capacity"},
		{"negative queue", bulkhead.New(1, bulkhead.WithQueue(-1)), "WithQueue(-1)"},
		{"queue too large", bulkhead.New(1, bulkhead.WithQueue(bulkhead.MaxCapacity+1)), "WithQueue"},
		{"negative wait", bulkhead.New(1, bulkhead.WithQueue(1), bulkhead.WithMaxWait(-time.Second)), "WithMaxWait was given a negative duration (-1s)"},
		{"wait without a queue", bulkhead.New(1, bulkhead.WithMaxWait(time.Second)), "without WithQueue"},
		{"nil clock", bulkhead.New(1, bulkhead.WithClock(nil)), "nil clock"},
		{"nil option", bulkhead.New(1, nil), "nil Option"},
		{"first bad option wins", bulkhead.New(1, bulkhead.WithQueue(-1), bulkhead.WithMaxWait(-1)), "WithQueue(-1)"},
		{"zero Bulkhead", new(bulkhead.Bulkhead), "zero or nil Bulkhead"},
		{"nil *Bulkhead", (*bulkhead.Bulkhead)(nil), "zero or nil Bulkhead"},

		{"priority zero capacity", bulkhead.NewPriority(0), "NewPriority(0)"},
		{"priority capacity too large", bulkhead.NewPriority(math.MaxInt32 + 1), "capacity"},
		{"low above standard", bulkhead.NewPriority(10, bulkhead.WithThresholds(0.9, 0.8)), "WithThresholds was given the low threshold 0.9, above the standard threshold 0.8"},
		{"low zero", bulkhead.NewPriority(10, bulkhead.WithThresholds(0, 0.8)), "WithThresholds was given the low threshold 0; it must lie in (0, 1]"},
		{"low negative", bulkhead.NewPriority(10, bulkhead.WithThresholds(-0.5, 0.8)), "low threshold -0.5"},
		{"standard above 1", bulkhead.NewPriority(10, bulkhead.WithThresholds(0.5, 1.5)), "standard threshold 1.5"},
		{"NaN", bulkhead.NewPriority(10, bulkhead.WithThresholds(math.NaN(), 0.8)), "NaN"},
		{"infinite", bulkhead.NewPriority(10, bulkhead.WithThresholds(0.5, math.Inf(1))), "+Inf"},
		{"no slot for low", bulkhead.NewPriority(10, bulkhead.WithThresholds(0.05, 0.8)), "no slot for low"},
		{"capacity 1, default thresholds", bulkhead.NewPriority(1), "no slot for low"},
		{"nil priority option", bulkhead.NewPriority(10, nil), "nil PriorityOption"},
		{"zero PriorityBulkhead", new(bulkhead.PriorityBulkhead), "zero or nil Bulkhead or PriorityBulkhead"},
		{"nil *PriorityBulkhead", (*bulkhead.PriorityBulkhead)(nil), "zero or nil Bulkhead or PriorityBulkhead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := guardtest.Invalid(t, c.g, c.want)
			// A nil pointer's methods, but Validate, panic, as the
			// standard library's do; policy.Guard reports it.
			if !strings.HasPrefix(c.name, "nil *") {
				guardtest.Refuses(t, c.g, err)
			}
			if errors.Is(err, bulkhead.ErrBulkheadFull) {
				t.Errorf("%v matches ErrBulkheadFull", err)
			}
		})
	}
}

func TestValidConfiguration(t *testing.T) {
	for name, g := range map[string]bulkheadGuard{
		"capacity 1":          bulkhead.New(1),
		"largest":             bulkhead.New(bulkhead.MaxCapacity, bulkhead.WithQueue(bulkhead.MaxCapacity)),
		"queue":               bulkhead.New(2, bulkhead.WithQueue(3)),
		"queue and wait":      bulkhead.New(2, bulkhead.WithQueue(3), bulkhead.WithMaxWait(time.Second), bulkhead.WithClock(clock.NewMock())),
		"zero wait, no queue": bulkhead.New(2, bulkhead.WithMaxWait(0)),
		"priority defaults":   bulkhead.NewPriority(2),
		"priority equal":      bulkhead.NewPriority(1, bulkhead.WithThresholds(1, 1)),
		"priority smallest":   bulkhead.NewPriority(10, bulkhead.WithThresholds(0.1, 0.1)),
	} {
		if err := g.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v", name, err)
		}
	}
}

// Allow refuses a nil context, whatever the bulkhead's state, as every
// guard of the module does, with the same words: an error matching
// ErrInvalidConfiguration, rather than a panic, a slot or a place in the
// queue.
func TestNilContext(t *testing.T) {
	full := bulkhead.New(1, bulkhead.WithQueue(1))
	fill(t, full, context.Background(), 1)
	fullPriority := bulkhead.NewPriority(10)
	for range 10 {
		if err := allow(fullPriority, bulkhead.WithPriority(context.Background(), bulkhead.Critical)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		g    guard.Guard
	}{
		{"Bulkhead", bulkhead.New(1)},
		{"Bulkhead_full_with_a_queue", full},
		{"Bulkhead_invalid", bulkhead.New(0)},
		{"Bulkhead_zero", &bulkhead.Bulkhead{}},
		{"Bulkhead_nil", (*bulkhead.Bulkhead)(nil)},
		{"PriorityBulkhead", bulkhead.NewPriority(10)},
		{"PriorityBulkhead_full", fullPriority},
		{"PriorityBulkhead_invalid", bulkhead.NewPriority(0)},
		{"PriorityBulkhead_zero", &bulkhead.PriorityBulkhead{}},
		{"PriorityBulkhead_nil", (*bulkhead.PriorityBulkhead)(nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			guardtest.RefusesNilContext(t, c.g, "bulkhead")
		})
	}
	b := bulkhead.New(1)
	_ = allow(b, nil)
	wantStats(t, b, bulkhead.Stats{Capacity: 1})
	if s := full.Stats(); s.InFlight != 1 || s.Queued != 0 || s.Canceled != 0 {
		t.Errorf("a full bulkhead after Allow(nil): %+v, want its one call in flight, nothing queued or counted", s)
	}
}
