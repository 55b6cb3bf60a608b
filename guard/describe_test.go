package guard_test

import (
	"math"
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	adaptive "github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// Every guard of the module describes itself: a kind, series of named
// metrics (a label value only with a label, one series for a metric with
// none), the same Description at each call; ReadMetrics writes every
// series, on a usable guard and on a zero one, and allocates nothing.
func TestModuleGuardsDescribeThemselves(t *testing.T) {
	usable, zero := moduleGuards()
	for _, mg := range append(usable, zero...) {
		t.Run(mg.name, func(t *testing.T) {
			g, ok := mg.make().(guard.Describer)
			if !ok {
				t.Fatalf("%T is no guard.Describer", mg.make())
			}
			d := g.Describe()
			if d.Kind == "" || len(d.Series) == 0 {
				t.Fatalf("Describe = %+v, want a kind and series", d)
			}
			if again := g.Describe(); &again.Series[0] != &d.Series[0] {
				t.Error("Describe made a new Description")
			}
			seen := map[*guard.Metric]int{}
			for _, s := range d.Series {
				if s.Metric == nil || s.Metric.Name == "" || s.Metric.Help == "" || s.Metric.Unit == "" {
					t.Fatalf("series %+v: want a named metric with a unit and a help text", s)
				}
				if s.Metric.Label == nil && s.Value != "" {
					t.Errorf("%s: the value %q, and no label", s.Metric.Name, s.Value)
				}
				seen[s.Metric]++
			}
			for m, n := range seen {
				if m.Label == nil && n != 1 {
					t.Errorf("%s, with no label: %d series", m.Name, n)
				}
			}
			v := make([]float64, len(d.Series))
			for i := range v {
				v[i] = math.NaN()
			}
			g.ReadMetrics(v)
			for i, x := range v {
				if math.IsNaN(x) {
					t.Errorf("series %d (%s %q) left unwritten", i, d.Series[i].Metric.Name, d.Series[i].Value)
				}
			}
			if n := testing.AllocsPerRun(100, func() { g.ReadMetrics(v) }); n != 0 {
				t.Errorf("ReadMetrics: %v allocations, want 0", n)
			}
		})
	}
}

// A guard whose state tells its load is a guard.Loader, and a nil one
// tells nothing: the zero Load, with no panic.
func TestModuleLoadersOfNil(t *testing.T) {
	for _, l := range []guard.Loader{
		(*breaker.Breaker)(nil), (*bulkhead.Bulkhead)(nil), (*bulkhead.PriorityBulkhead)(nil),
		(*adaptive.Limiter)(nil), (*throttle.Throttle)(nil),
	} {
		if got := l.Load(); got != (guard.Load{}) {
			t.Errorf("%T(nil).Load() = %+v, want the zero Load", l, got)
		}
	}
}

// The loads the module's guards tell, new: a bulkhead and a limiter queue
// their callers and count them against a capacity, refusing for it with
// their Full error; a new breaker is not Refusing, a new throttle rejects
// nothing.
func TestModuleLoads(t *testing.T) {
	if l := bulkhead.New(3).Load(); l.Capacity != 3 || !l.Queues || l.Full != bulkhead.ErrBulkheadFull {
		t.Errorf("bulkhead: %+v", l)
	}
	if l := bulkhead.NewPriority(3).Load(); l.Capacity != 3 || l.Queues || l.Full != bulkhead.ErrBulkheadFull {
		t.Errorf("priority bulkhead: %+v", l)
	}
	if l := adaptive.New().Load(); l.Capacity <= 0 || !l.Queues || l.Full != adaptive.ErrLimitExceeded {
		t.Errorf("limiter: %+v", l)
	}
	if l := breaker.New().Load(); l != (guard.Load{}) {
		t.Errorf("a new breaker: %+v, want the zero Load", l)
	}
	if l := throttle.New().Load(); l.Rejection != 0 || l.Full != throttle.ErrThrottled {
		t.Errorf("a new throttle: %+v", l)
	}
	cb := breaker.New()
	_ = cb.ForceOpen()
	if !cb.Load().Refusing {
		t.Error("a breaker forced open is not Refusing")
	}
}
