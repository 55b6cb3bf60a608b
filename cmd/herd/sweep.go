package main

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// row is one line of the table: a strategy on one fleet size in one
// scenario, averaged over the runs.
type row struct {
	Scenario string  `json:"scenario"`
	Strategy string  `json:"strategy"`
	Clients  int     `json:"clients"`
	Runs     int     `json:"runs"`
	Calls    float64 `json:"calls"`
	// Completion is when the last client to succeed did so (see
	// herd.Result.Completion), averaged; Seconds is the same in seconds.
	// When Unfinished is not 0, it is the cut-off: a lower bound.
	Completion time.Duration `json:"-"`
	Seconds    float64       `json:"last_success_s"`
	PeakLoad   float64       `json:"peak_load"`
	// Failed is the mean number of clients that did not succeed: they gave
	// up, or were still retrying at the horizon (or, live, at -live-limit).
	Failed float64 `json:"failed"`
	// Unfinished is the part of Failed that was still retrying when the run
	// was cut off at the horizon (or, live, at -live-limit).
	Unfinished float64 `json:"unfinished"`

	// timeline is the load per window of the first run, for the charts.
	timeline []int
	window   time.Duration
	// lastSuccess is, live, when the last client succeeded, even if the
	// limit cut others off.
	lastSuccess time.Duration
}

// job is one simulation of a sweep.
type job struct {
	row  int // index in the rows
	cfg  herd.Config
	keep bool // keep the timeline
}

// sweep runs every simulation the options ask for, on all cores, and
// returns the rows in the order scenario, fleet size, strategy. tick is
// called after each simulation. It stops early, with the context's error,
// if ctx is cancelled.
func sweep(ctx context.Context, o *options, tick func()) ([]row, error) {
	var rows []row
	var jobs []job
	for _, sc := range o.scenarios {
		for _, n := range o.clients {
			for _, st := range o.strategies {
				rows = append(rows, row{Scenario: string(sc), Strategy: st.Name, Clients: n, Runs: o.runs})
				for r := range o.runs {
					jobs = append(jobs, job{row: len(rows) - 1, keep: r == 0, cfg: herd.Config{
						Scenario:  sc,
						Clients:   n,
						NewPolicy: st.NewPolicy,
						Seed:      o.seed + uint64(r),
						Delay:     o.delay,
						Capacity:  o.capacity,
						MaxCalls:  o.maxCalls,
						Horizon:   o.horizon,
					}})
				}
			}
		}
	}

	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  = make(chan job)
	)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for j := range next {
				res := herd.Simulate(j.cfg)
				mu.Lock()
				if res.Err != nil && first == nil {
					first = res.Err
				}
				r := &rows[j.row]
				r.Calls += float64(res.Calls)
				r.Completion += res.Completion
				r.PeakLoad += float64(res.PeakLoad)
				r.Failed += float64(res.Clients - res.Succeeded)
				r.Unfinished += float64(res.Unfinished())
				if j.keep {
					r.timeline, r.window = res.Load, res.Window
				}
				mu.Unlock()
				tick()
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range rows {
		r := &rows[i]
		k := float64(r.Runs)
		r.Calls /= k
		r.PeakLoad /= k
		r.Failed /= k
		r.Unfinished /= k
		r.Completion /= time.Duration(r.Runs)
		r.Seconds = r.Completion.Seconds()
	}
	return rows, nil
}

// jobCount is how many simulations sweep will run.
func jobCount(o *options) int {
	return len(o.scenarios) * len(o.clients) * len(o.strategies) * o.runs
}
