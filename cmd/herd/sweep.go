package main

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// row is one line of the table: a strategy on one fleet size in one
// scenario, averaged over the runs. Its JSON keys are the names in
// columns, in the same order.
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
	PeakLoad   float64       `json:"peak_per_10ms"`
	// Failed is the mean number of clients that did not succeed: they gave
	// up, or were still retrying at the horizon (or, live, at -live-limit).
	Failed float64 `json:"failed"`
	// Unfinished is the part of Failed that was still retrying when the run
	// was cut off at the horizon (or, live, at -live-limit).
	Unfinished float64 `json:"unfinished"`

	// timeline is the load per window of the first run, for the charts.
	timeline []int
	window   time.Duration
	// live only: lastSuccess is when the last client succeeded, even if
	// the limit cut others off; realTime is how long the strategy took on
	// the machine's clock; behind counts the clients, among the
	// unfinished, that the real-time bound stopped.
	lastSuccess time.Duration
	realTime    time.Duration
	behind      int
}

// job is one simulation of a sweep.
type job struct {
	row  int // index in the rows
	cfg  herd.Config
	keep bool // keep the timeline
}

// config is the simulation the options ask for with scenario sc, n
// clients, strategy st, in run number run.
func (o *options) config(sc herd.Scenario, n int, st herd.Strategy, run int) herd.Config {
	return herd.Config{
		Scenario:  sc,
		Clients:   n,
		NewPolicy: st.NewPolicy,
		Seed:      o.seed + uint64(run),
		Delay:     o.delay,
		Capacity:  o.capacity,
		MaxCalls:  o.maxCalls,
		Horizon:   o.horizon,
	}
}

// sweep runs every simulation the options ask for, on all cores (or
// o.workers), and returns the rows in the order scenario, fleet size,
// strategy. tick is called after each simulation that finished.
//
// If ctx is done, the simulations in progress stop within moments, and
// sweep returns the rows whose runs had all finished, with the context's
// cause.
func sweep(ctx context.Context, o *options, tick func()) ([]row, error) {
	var rows []row
	var jobs []job
	for _, sc := range o.scenarios {
		for _, n := range o.clients {
			for _, st := range o.strategies {
				rows = append(rows, row{Scenario: string(sc), Strategy: st.Name, Clients: n, Runs: o.runs})
				for r := range o.runs {
					jobs = append(jobs, job{row: len(rows) - 1, keep: r == 0, cfg: o.config(sc, n, st, r)})
				}
			}
		}
	}

	var (
		mu      sync.Mutex
		first   error
		wg      sync.WaitGroup
		next    = make(chan job)
		done    = make([]int, len(rows)) // runs finished, per row
		workers = o.workers
	)
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for j := range next {
				res := herd.SimulateContext(ctx, j.cfg)
				if res.Err != nil && ctx.Err() != nil {
					continue // stopped by the cancellation: not counted
				}
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
				done[j.row]++
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
	finished := rows[:0]
	for i, r := range rows {
		if done[i] < r.Runs {
			continue
		}
		k := float64(r.Runs)
		r.Calls /= k
		r.PeakLoad /= k
		r.Failed /= k
		r.Unfinished /= k
		r.Completion /= time.Duration(r.Runs)
		r.Seconds = r.Completion.Seconds()
		finished = append(finished, r)
	}
	if ctx.Err() != nil {
		return finished, context.Cause(ctx)
	}
	return finished, nil
}

// jobCount is how many simulations sweep will run.
func jobCount(o *options) int {
	return len(o.scenarios) * len(o.clients) * len(o.strategies) * o.runs
}

// rowCount is how many rows a complete run prints.
func rowCount(o *options) int {
	if o.live {
		return len(o.strategies)
	}
	return len(o.scenarios) * len(o.clients) * len(o.strategies)
}
