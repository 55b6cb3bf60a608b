package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
)

// runner is the state of one run the callers share.
type runner struct {
	cfg    config
	target target
	tally  tally
	root   context.Context // every call's context derives from it
	stop   chan struct{}   // closed when callers must start no new call
}

// result is what a run found.
type result struct {
	cfg                    config
	load, drain, close     time.Duration // the phases: calls started; calls in flight ending; everything closing
	counts                 counts
	server                 serverStats
	made                   uint64          // requests made through the base transport
	ends                   [numEnds]uint64 // how they ended
	otherEnd               string          // the message of one that ended in another error
	goroutinesBefore       int
	goroutinesAfter        int
	leaked                 []stackGroup // goroutines after that were not there before
	stuck                  []stackGroup // goroutines when the grace ran out with calls in flight
	unfinished             bool         // calls still in flight after the root context was cancelled too
	samples                []sample     // the heap, during the load and the drain
	heapAfter              sample       // the heap once everything is closed
	problems, extraFigures []string     // from the target
}

// run makes one soak run of cfg. It ends the load when cfg.duration has
// passed or ctx is done, whichever comes first. progress, if not nil,
// receives a progress line every cfg.progress.
func run(ctx context.Context, cfg config, progress io.Writer) (*result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	res := &result{cfg: cfg, goroutinesBefore: runtime.NumGoroutine()}
	before := dumpGoroutines()

	srv, err := startServer(cfg.mix)
	if err != nil {
		return nil, err
	}
	tgt, err := newTarget(cfg, srv.url)
	if err != nil {
		srv.close()
		return nil, err
	}
	root, cancelRoot := context.WithCancelCause(context.Background())
	defer cancelRoot(nil)
	r := &runner{cfg: cfg, target: tgt, root: root, stop: make(chan struct{})}
	r.tally.maxTries = cfg.maxTries

	smp := startSampler(cfg.sample, cfg.sampleGC, func() int64 { return r.tally.read().InFlight() })
	start := time.Now()
	var callers sync.WaitGroup
	for i := range cfg.callers {
		callers.Add(1)
		go func() {
			defer callers.Done()
			r.caller(i)
		}()
	}
	stopProgress := r.startProgress(progress, start)

	loadTimer := time.NewTimer(cfg.duration)
	select {
	case <-loadTimer.C:
	case <-ctx.Done():
		loadTimer.Stop()
	}
	close(r.stop)
	res.load = time.Since(start)

	done := make(chan struct{})
	go func() {
		callers.Wait()
		close(done)
	}()
	graceTimer := time.NewTimer(cfg.grace)
	select {
	case <-done:
		graceTimer.Stop()
	case <-graceTimer.C:
		// Calls outlived their deadline by the whole grace: say where
		// they are, then cancel them.
		res.stuck = group(extra(before, dumpGoroutines()))
		cancelRoot(errRunStopped)
		again := time.NewTimer(cfg.grace)
		select {
		case <-done:
			again.Stop()
		case <-again.C:
			res.unfinished = true
		}
	}
	stopProgress()
	res.samples = smp.stop()
	res.drain = time.Since(start) - res.load
	res.counts = r.tally.read()
	res.made = tgt.base().made.Load()
	res.ends, res.otherEnd = tgt.base().endCounts()
	if res.unfinished {
		// Closing the transport and the server under calls in flight
		// would hide where they are; the report says it.
		return res, nil
	}

	closing := time.Now()
	tgt.close()
	srv.close()
	res.server = srv.stats()
	res.goroutinesAfter = settle(res.goroutinesBefore, cfg.settle)
	if res.goroutinesAfter > res.goroutinesBefore {
		res.leaked = group(extra(before, dumpGoroutines()))
	}
	res.close = time.Since(closing)
	res.problems, res.extraFigures = tgt.check()
	// Two collections: the first moves the sync.Pools' contents aside,
	// the second frees them.
	runtime.GC()
	res.heapAfter = readHeap(time.Since(start))
	if cfg.memProfile != "" {
		if err := writeHeapProfile(cfg.memProfile); err != nil {
			res.problems = append(res.problems, err.Error())
		}
	}
	return res, nil
}

// startProgress prints a line to w every r.cfg.progress until the
// function it returns is called; that function returns once the printing
// goroutine has ended.
func (r *runner) startProgress(w io.Writer, start time.Time) func() {
	if w == nil || r.cfg.progress <= 0 {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(r.cfg.progress)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				c := r.tally.read()
				fmt.Fprintf(w, "soak: %5.1fs  started %d  in flight %d  completed %d  failed %d  requests %d  goroutines %d\n",
					time.Since(start).Seconds(), c.Started, c.InFlight(), c.Completed, c.FailedTotal(),
					r.target.base().made.Load(), runtime.NumGoroutine())
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// failures lists why the run fails; none means it passed.
func (res *result) failures() []string {
	var f []string
	c := res.counts
	if !c.Balanced() {
		f = append(f, fmt.Sprintf("accounting: %d calls started, %d completed + %d failed = %d",
			c.Started, c.Completed, c.FailedTotal(), c.Completed+c.FailedTotal()))
	}
	if len(res.stuck) > 0 {
		f = append(f, fmt.Sprintf("calls still in flight %v after the end of the load", res.cfg.grace))
	}
	if res.unfinished {
		f = append(f, "calls still in flight after their contexts were cancelled")
	}
	if res.goroutinesAfter > res.goroutinesBefore {
		f = append(f, fmt.Sprintf("goroutines: %d after, %d before", res.goroutinesAfter, res.goroutinesBefore))
	}
	if n := c.Broken(); n > 0 {
		f = append(f, fmt.Sprintf("%d failures break a promise of the library (see the causes)", n))
	}
	if c.Mismatch > 0 {
		f = append(f, fmt.Sprintf("%d calls whose *backoff.Error.Attempts differs from the attempts made", c.Mismatch))
	}
	if c.OverTries > 0 {
		f = append(f, fmt.Sprintf("%d calls made more than -max-tries %d attempts", c.OverTries, res.cfg.maxTries))
	}
	return append(f, res.problems...)
}
