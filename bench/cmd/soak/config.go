package main

import (
	"errors"
	"flag"
	"fmt"
	"time"
)

// The two ways of calling the server.
const (
	modeTransport = "transport" // an http.Client over httpretry.NewTransport
	modePolicy    = "policy"    // policy.Do through a Policy: bulkhead, retry, breaker, timeout
)

// config is one soak run, as the flags set it.
type config struct {
	mode        string
	callers     int
	duration    time.Duration
	think       time.Duration // a caller pauses a random time in [0, think] between calls
	callTimeout time.Duration // each call's deadline
	cancel      float64       // the fraction of calls whose context is cancelled
	cancelIn    time.Duration // ... at a random moment in [0, cancelIn] after the call starts
	maxTries    int
	boInitial   time.Duration
	boMax       time.Duration
	maxConns    int // the base transport's MaxConnsPerHost

	// Policy mode.
	attemptTimeout time.Duration
	bulkhead       int
	bulkheadQueue  int
	bulkheadWait   time.Duration
	breakerRate    float64
	breakerMin     int
	breakerWindow  int
	breakerOpen    time.Duration

	// The end of the run and the figures.
	grace      time.Duration // how long calls in flight at the end get to return
	settle     time.Duration // how long the goroutines get to go back to the baseline
	sample     time.Duration // the heap's sampling interval
	sampleGC   bool          // collect the garbage before each sample
	progress   time.Duration // a progress line this often on standard error; 0: none
	memProfile string        // a heap profile written here once everything is closed

	mix mix // the server's misbehaviour
}

// defaults is the run the brief of the program describes: 10,000 callers
// for 30 s.
func defaults() config {
	return config{
		mode:           modeTransport,
		callers:        10000,
		duration:       30 * time.Second,
		think:          5 * time.Second,
		callTimeout:    5 * time.Second,
		cancel:         0.05,
		cancelIn:       time.Second,
		maxTries:       4,
		boInitial:      50 * time.Millisecond,
		boMax:          time.Second,
		maxConns:       4000,
		attemptTimeout: 2 * time.Second,
		bulkhead:       1000,
		bulkheadQueue:  2000,
		bulkheadWait:   100 * time.Millisecond,
		breakerRate:    0.75,
		breakerMin:     50,
		breakerWindow:  200,
		breakerOpen:    time.Second,
		grace:          15 * time.Second,
		settle:         10 * time.Second,
		sample:         time.Second,
		sampleGC:       true,
		progress:       5 * time.Second,
		mix: mix{
			seed:          1,
			unavailable:   0.15,
			retryAfter:    0.05,
			retryAfterMax: 2,
			reset:         0.10,
			slow:          0.10,
			slowMax:       1500 * time.Millisecond,
			slowChunks:    8,
			outage:        0.05,
			outageSlot:    time.Second,
			body:          512,
		},
	}
}

// register binds the flags of c to fs, with c's values as defaults.
func (c *config) register(fs *flag.FlagSet) {
	fs.StringVar(&c.mode, "mode", c.mode, "how callers call the server: transport (an http.Client over httpretry.NewTransport) or policy (policy.Do through bulkhead, retry, breaker, timeout)")
	fs.IntVar(&c.callers, "callers", c.callers, "concurrent callers")
	fs.DurationVar(&c.duration, "duration", c.duration, "how long callers start new calls")
	fs.DurationVar(&c.think, "think", c.think, "a caller pauses a random time in [0, think] between its calls")
	fs.DurationVar(&c.callTimeout, "call-timeout", c.callTimeout, "each call's context deadline")
	fs.Float64Var(&c.cancel, "cancel", c.cancel, "fraction of calls whose context is cancelled at a random moment")
	fs.DurationVar(&c.cancelIn, "cancel-within", c.cancelIn, "a cancelled call is cancelled a random time in [0, this] after it starts")
	fs.IntVar(&c.maxTries, "max-tries", c.maxTries, "attempts per call, the first included")
	fs.DurationVar(&c.boInitial, "backoff-initial", c.boInitial, "the first nominal wait (full jitter, doubling)")
	fs.DurationVar(&c.boMax, "backoff-max", c.boMax, "the cap of the nominal wait")
	fs.IntVar(&c.maxConns, "max-conns", c.maxConns, "the base transport's MaxConnsPerHost (each connection is two file descriptors on loopback)")

	fs.DurationVar(&c.attemptTimeout, "attempt-timeout", c.attemptTimeout, "policy mode: each attempt's timeout (a Timeout stage inside the breaker)")
	fs.IntVar(&c.bulkhead, "bulkhead", c.bulkhead, "policy mode: the bulkhead's capacity")
	fs.IntVar(&c.bulkheadQueue, "bulkhead-queue", c.bulkheadQueue, "policy mode: the bulkhead's queue (0: none)")
	fs.DurationVar(&c.bulkheadWait, "bulkhead-wait", c.bulkheadWait, "policy mode: the longest wait in the bulkhead's queue (0: no bound)")
	fs.Float64Var(&c.breakerRate, "breaker-rate", c.breakerRate, "policy mode: the failure rate that trips the breaker")
	fs.IntVar(&c.breakerMin, "breaker-min", c.breakerMin, "policy mode: calls the breaker's window needs before it may trip")
	fs.IntVar(&c.breakerWindow, "breaker-window", c.breakerWindow, "policy mode: the breaker's window, in calls")
	fs.DurationVar(&c.breakerOpen, "breaker-open", c.breakerOpen, "policy mode: how long the breaker stays open")

	fs.DurationVar(&c.grace, "grace", c.grace, "after -duration, how long calls in flight get to return before they count as stuck")
	fs.DurationVar(&c.settle, "settle", c.settle, "after everything is closed, how long goroutines get to go back to the baseline")
	fs.DurationVar(&c.sample, "sample", c.sample, "the heap's sampling interval")
	fs.BoolVar(&c.sampleGC, "gc", c.sampleGC, "collect the garbage before each sample; with -gc=false a sample reads the live heap of the runtime's own last collection, which costs the load nothing")
	fs.DurationVar(&c.progress, "progress", c.progress, "a progress line on standard error this often (0: none)")
	fs.StringVar(&c.memProfile, "memprofile", c.memProfile, "write a heap profile to this file once everything is closed (go tool pprof reads it)")

	m := &c.mix
	fs.Uint64Var(&m.seed, "seed", m.seed, "the seed of the server's misbehaviour: the n-th request it receives meets the same fate for the same seed and mix")
	fs.Float64Var(&m.unavailable, "p503", m.unavailable, "fraction of requests answered 503 without Retry-After")
	fs.Float64Var(&m.retryAfter, "pretry-after", m.retryAfter, "fraction of requests answered 503 with Retry-After")
	fs.IntVar(&m.retryAfterMax, "retry-after-max", m.retryAfterMax, "the largest Retry-After, in seconds (each drawn in [0, this])")
	fs.Float64Var(&m.reset, "preset", m.reset, "fraction of requests whose connection is reset (hijacked and closed with SO_LINGER 0)")
	fs.Float64Var(&m.slow, "pslow", m.slow, "fraction of answered requests whose body is trickled")
	fs.DurationVar(&m.slowMax, "slow-max", m.slowMax, "a trickled body takes a random time in [0, this]")
	fs.IntVar(&m.slowChunks, "slow-chunks", m.slowChunks, "a trickled body comes in this many flushed pieces")
	fs.Float64Var(&m.outage, "outage", m.outage, "fraction of the slots of -outage-slot, counted from the server's start, in which every request is answered 503: outages, which trip breakers")
	fs.DurationVar(&m.outageSlot, "outage-slot", m.outageSlot, "the length of a slot of time that may be an outage")
	fs.IntVar(&m.body, "body", m.body, "bytes in a response body")
}

// validate reports the first setting the run cannot use.
func (c *config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.mode != modeTransport && c.mode != modePolicy {
		bad("-mode %q: want %s or %s", c.mode, modeTransport, modePolicy)
	}
	if c.callers < 1 {
		bad("-callers %d: want at least 1", c.callers)
	}
	positive := []struct {
		name string
		d    time.Duration
	}{
		{"-duration", c.duration}, {"-call-timeout", c.callTimeout}, {"-backoff-initial", c.boInitial},
		{"-backoff-max", c.boMax}, {"-attempt-timeout", c.attemptTimeout}, {"-breaker-open", c.breakerOpen},
		{"-grace", c.grace}, {"-settle", c.settle}, {"-sample", c.sample},
	}
	for _, p := range positive {
		if p.d <= 0 {
			bad("%s %v: want a positive duration", p.name, p.d)
		}
	}
	notNegative := []struct {
		name string
		d    time.Duration
	}{
		{"-think", c.think}, {"-cancel-within", c.cancelIn}, {"-bulkhead-wait", c.bulkheadWait}, {"-progress", c.progress},
	}
	for _, p := range notNegative {
		if p.d < 0 {
			bad("%s %v: want a duration that is not negative", p.name, p.d)
		}
	}
	if !isFraction(c.cancel) {
		bad("-cancel %v: want a fraction in [0, 1]", c.cancel)
	}
	if c.maxTries < 1 {
		bad("-max-tries %d: want at least 1", c.maxTries)
	}
	if c.boMax < c.boInitial {
		bad("-backoff-max %v is below -backoff-initial %v", c.boMax, c.boInitial)
	}
	if c.maxConns < 0 {
		bad("-max-conns %d: want 0 (no limit) or more", c.maxConns)
	}
	if c.mode == modePolicy {
		// The guards report their own bad settings when the Policy is
		// built; these are the ones a flag could get wrong silently.
		if c.bulkhead < 1 {
			bad("-bulkhead %d: want at least 1", c.bulkhead)
		}
		if c.bulkheadQueue < 0 {
			bad("-bulkhead-queue %d: want 0 (no queue) or more", c.bulkheadQueue)
		}
		if c.bulkheadWait > 0 && c.bulkheadQueue == 0 {
			bad("-bulkhead-wait %v needs a -bulkhead-queue", c.bulkheadWait)
		}
	}
	if err := c.mix.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func isFraction(f float64) bool { return f >= 0 && f <= 1 } // NaN fails both
