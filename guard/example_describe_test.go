package guard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/pushback"
)

// slots is a guard of one's own that describes itself: as many calls at
// once as its channel holds.
type slots struct{ sem chan struct{} }

var errNoSlot = errors.New("no slot free")

func (s *slots) Allow(context.Context, guard.Call) (guard.Permit, error) {
	select {
	case s.sem <- struct{}{}:
		return guard.Permit{}, nil
	default:
		return guard.Permit{}, errNoSlot
	}
}

func (s *slots) Record(guard.Permit, guard.Outcome) { <-s.sem }

// Its metrics, made once and shared by every slots.
var (
	slotsInFlight    = &guard.Metric{Name: "slots.in_flight", Kind: guard.Level, Unit: "{call}", Help: "Calls holding a slot."}
	slotsCapacity    = &guard.Metric{Name: "slots.capacity", Kind: guard.Level, Unit: "{call}", Help: "Slots in all."}
	slotsDescription = guard.Description{Kind: "slots", Series: []guard.Series{{Metric: slotsInFlight}, {Metric: slotsCapacity}}}
)

func (s *slots) Describe() guard.Description { return slotsDescription }

func (s *slots) ReadMetrics(v []float64) { v[0], v[1] = float64(len(s.sem)), float64(cap(s.sem)) }

func (s *slots) Load() guard.Load {
	return guard.Load{InFlight: len(s.sem), Capacity: cap(s.sem), Full: errNoSlot}
}

// A guard that describes its metrics (Describer) is observed by the
// telemetry modules' Observe, which read it as here; one that tells its
// load (Loader) sets a server's pressure and the wait it asks of a client
// it refused (package pushback), as the repository's own guards do.
func ExampleDescriber() {
	s := &slots{sem: make(chan struct{}, 2)}
	for range 3 {
		_, _ = s.Allow(context.Background(), guard.Call{Attempt: 1})
	}
	d := s.Describe()
	values := make([]float64, len(d.Series))
	s.ReadMetrics(values)
	for i, series := range d.Series {
		fmt.Println(series.Metric.Name, values[i])
	}
	fmt.Println("pressure", pushback.Pressure(s))
	rule := pushback.Rule{Base: time.Second, Max: time.Minute, Unit: time.Second, Random: func() float64 { return 0 }}
	fmt.Println("wait", rule.Wait(s, errNoSlot))
	// Output:
	// slots.in_flight 2
	// slots.capacity 2
	// pressure 1
	// wait 1s
}
