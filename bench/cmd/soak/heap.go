package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// sample is one reading of the heap, taken just after a garbage
// collection.
type sample struct {
	at         time.Duration // since the sampler started
	inUse      uint64        // heap in use: spans with objects, as MemStats.HeapInuse
	live       uint64        // bytes of live objects
	goroutines int
	inFlight   int64         // calls in flight, as the sampler's function counts them
	took       time.Duration // the time the collection and the reading took
}

// The metrics a sample reads. In use is the heap's objects and the unused
// room in their spans, which MemStats.HeapInuse adds up.
var sampleMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/gc/heap/live:bytes",
}

// readHeap collects the garbage and reads the heap, at since after the
// start. It leaves inFlight 0.
func readHeap(since time.Duration) sample { return readHeapGC(since, true) }

// readHeapGC reads the heap at since after the start, after a collection
// if gc is true; otherwise as the runtime's own last collection left it.
func readHeapGC(since time.Duration, gc bool) sample {
	begin := time.Now()
	if gc {
		runtime.GC()
	}
	m := make([]metrics.Sample, len(sampleMetrics))
	for i, name := range sampleMetrics {
		m[i].Name = name
	}
	metrics.Read(m)
	value := func(i int) uint64 {
		if m[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return m[i].Value.Uint64()
	}
	return sample{
		at:         since,
		inUse:      value(0) + value(1),
		live:       value(2),
		goroutines: runtime.NumGoroutine(),
		took:       time.Since(begin),
	}
}

// sampler reads the heap every interval on a goroutine of its own, until
// stopped. On a machine the load saturates, the sampling goroutine waits
// its turn like any other, and samples come late: the report gives the
// largest gap.
type sampler struct {
	gc       bool // collect before each sample
	start    time.Time
	inFlight func() int64
	samples  []sample
	quit     chan struct{}
	done     chan struct{}
}

// startSampler takes a first sample at once, then one every interval,
// each after a collection if gc is true; inFlight counts the calls in
// flight for each sample.
func startSampler(interval time.Duration, gc bool, inFlight func() int64) *sampler {
	s := &sampler{gc: gc, start: time.Now(), inFlight: inFlight, quit: make(chan struct{}), done: make(chan struct{})}
	s.samples = append(s.samples, s.take())
	go s.loop(interval)
	return s
}

// take takes a sample.
func (s *sampler) take() sample {
	n := s.inFlight()
	x := readHeapGC(time.Since(s.start), s.gc)
	x.inFlight = n
	return x
}

func (s *sampler) loop(interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.samples = append(s.samples, s.take())
		case <-s.quit:
			return
		}
	}
}

// stop takes a last sample, ends the goroutine and returns every sample.
func (s *sampler) stop() []sample {
	close(s.quit)
	<-s.done
	return append(s.samples, s.take())
}

// series sums up one figure of the samples of a run.
type series struct {
	Before uint64 // the first sample, before the callers start
	// Of the samples of the steady load: those taken during the load,
	// after a warm-up of the first quarter of them, in which the callers
	// ramp up and the pools fill.
	N           int
	WarmUp      int
	Min, Max    uint64
	Last        uint64
	SlopePerMin float64 // least squares, in bytes per minute
	Drained     uint64  // the last sample, once every call has returned

	MaxGap                   time.Duration // the longest time between two samples of the load
	MaxTook                  time.Duration // the longest a sample of the load took
	MinInFlight, MaxInFlight int64         // calls in flight at the steady samples
}

// summarize sums up the figure of each sample that value returns; the
// load ended load after the first sample.
func summarize(samples []sample, load time.Duration, value func(sample) uint64) series {
	var s series
	if len(samples) == 0 {
		return s
	}
	s.Before, s.Drained = value(samples[0]), value(samples[len(samples)-1])
	var during []sample
	for _, x := range samples[1:] {
		if x.at <= load {
			during = append(during, x)
		}
	}
	s.WarmUp = len(during) / 4
	steady := during[s.WarmUp:]
	s.N = len(steady)
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = value(steady[0]), value(steady[0])
	s.MinInFlight, s.MaxInFlight = steady[0].inFlight, steady[0].inFlight
	for _, x := range steady {
		v := value(x)
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
		s.MinInFlight, s.MaxInFlight = min(s.MinInFlight, x.inFlight), max(s.MaxInFlight, x.inFlight)
	}
	prev := samples[0].at
	for _, x := range during {
		s.MaxTook = max(s.MaxTook, x.took)
		s.MaxGap = max(s.MaxGap, x.at-prev)
		prev = x.at
	}
	s.Last = value(steady[s.N-1])
	s.SlopePerMin = slope(steady, value) * float64(time.Minute)
	return s
}

// slope is the least-squares slope of value over time, per nanosecond; 0
// for fewer than two samples or samples all at one instant.
func slope(samples []sample, value func(sample) uint64) float64 {
	n := float64(len(samples))
	if n < 2 {
		return 0
	}
	var mt, mv float64
	for _, x := range samples {
		mt += float64(x.at)
		mv += float64(value(x))
	}
	mt, mv = mt/n, mv/n
	var num, den float64
	for _, x := range samples {
		dt := float64(x.at) - mt
		num += dt * (float64(value(x)) - mv)
		den += dt * dt
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// writeHeapProfile writes a heap profile, after a GC, to the file name.
func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	runtime.GC()
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	return nil
}
