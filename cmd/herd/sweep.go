package main

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// row is one line of the table: a strategy on one fleet size in one
// scenario, averaged over the runs. Its fields are named in columns, in
// the table, the CSV file and the JSON document alike; some apply to the
// outage scenario only, some to the others only (see column).
type row struct {
	Scenario string
	Strategy string
	Clients  int
	Runs     int
	Calls    float64
	// Completion is when the last client to succeed did so (see
	// herd.Result.Completion), averaged; Seconds is the same in seconds.
	// When Unfinished is not 0, it is the cut-off: a lower bound.
	Completion time.Duration
	Seconds    float64
	PeakLoad   float64
	// Failed is the mean number of clients that did not succeed: they gave
	// up, or were still retrying at the horizon (or, live, at -live-limit).
	Failed float64
	// Unfinished is the part of Failed that was still retrying when the run
	// was cut off at the horizon (or, live, at -live-limit).
	Unfinished float64

	// The outage scenario's: the user calls started and failed, the
	// amplification while down (the mean and that of the busiest window),
	// while degraded and over the whole run, and the recovery (see herd.OutageResult), averaged. Recovered says
	// that every run was back to normal; otherwise Recovery is a lower
	// bound.
	UserCalls  float64
	UserFailed float64
	DownX      float64
	DownPeakX  float64
	DegradedX  float64
	TotalX     float64
	Recovery   time.Duration
	RecoveryS  float64
	Recovered  bool
	// Success is how long the user calls took to succeed again at 99%
	// (herd.OutageResult.SuccessRecovery), SuccessS the same in seconds;
	// SuccessRecovered says every run did. FailedPct is the share of the
	// user calls started in each phase that failed, in percent.
	Success          time.Duration
	SuccessS         float64
	SuccessRecovered bool
	FailedPct        [herd.NumPhases]float64

	// timeline is the load per window of the first run, for the charts;
	// in outage, base is the base load of a window, and phases the
	// phases.
	timeline []int
	window   time.Duration
	base     float64
	phases   herd.Phases
	// live only: lastSuccess is when the last client succeeded, even if
	// the limit cut others off; realTime is how long the strategy took on
	// the machine's clock; behind counts the clients, among the
	// unfinished, that the real-time bound stopped.
	lastSuccess time.Duration
	realTime    time.Duration
	behind      int

	overloadRow // the overload scenario's

	// seeds are the row's runs, each a row of its own, if the options
	// asked to keep them (options.keepRuns): the page shows their spread.
	seeds []row
}

// job is one simulation of a sweep.
type job struct {
	row int // index in the rows
	run int // its number among the row's runs, from 0; the first gives the row its timelines
	cfg herd.Config
}

// config is the simulation the options ask for with scenario sc, n
// clients, strategy st, in run number run.
func (o *options) config(sc herd.Scenario, n int, st herd.Strategy, run int) herd.Config {
	cfg := herd.Config{
		Scenario:   sc,
		Clients:    n,
		NewBackOff: st.NewBackOff,
		Seed:       o.seed + uint64(run),
		Delay:      o.delay,
		Capacity:   o.capacity,
		MaxCalls:   o.maxCalls,
		Horizon:    o.horizon,
		NewGuards:  st.NewGuards,
		Rate:       o.rate,
		Tries:      o.tries,
		Phases:     o.phases,
		Arrivals:   o.arrivals,
	}
	if sc == herd.Overload {
		return o.overloadConfig(cfg, st)
	}
	return cfg
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
		clients, strategies := o.plan(sc)
		for _, n := range clients {
			for _, st := range strategies {
				rows = append(rows, row{Scenario: string(sc), Strategy: st.Name, Clients: n, Runs: o.runs, Recovered: true, SuccessRecovered: true})
				for r := range o.runs {
					jobs = append(jobs, job{row: len(rows) - 1, run: r, cfg: o.config(sc, n, st, r)})
				}
			}
		}
	}

	// The longest simulations first, those of outage and overload, so that
	// the last to finish do not leave the other cores idle; the others in
	// order.
	long := func(j job) bool { return j.cfg.Scenario == herd.Outage || j.cfg.Scenario == herd.Overload }
	slices.SortStableFunc(jobs, func(a, b job) int {
		switch la, lb := long(a), long(b); {
		case la == lb:
			return 0
		case la:
			return -1
		}
		return 1
	})
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  = make(chan job)
		done  = make([]int, len(rows)) // runs added, per row
		// The runs of a row are added in their order, whatever order they
		// finish in, so that the sums, and the figures, are the same from
		// one sweep to the next: a run that finishes early waits here.
		early   = make([]map[int]herd.Result, len(rows))
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
				if early[j.row] == nil {
					early[j.row] = map[int]herd.Result{}
				}
				early[j.row][j.run] = res
				for {
					res, ok := early[j.row][done[j.row]]
					if !ok {
						break
					}
					delete(early[j.row], done[j.row])
					rows[j.row].addRun(res, done[j.row] == 0, j.cfg.Phases)
					if o.keepRuns {
						r := &rows[j.row]
						one := row{Scenario: r.Scenario, Strategy: r.Strategy, Clients: r.Clients, Runs: 1, Recovered: true, SuccessRecovered: true}
						one.addRun(res, false, j.cfg.Phases)
						one.finish()
						r.seeds = append(r.seeds, one)
					}
					done[j.row]++
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
	finished := rows[:0]
	for i, r := range rows {
		if done[i] < r.Runs {
			continue
		}
		r.finish()
		finished = append(finished, r)
	}
	if ctx.Err() != nil {
		return finished, context.Cause(ctx)
	}
	return finished, nil
}

// finish turns the sums of r's runs into their means.
func (r *row) finish() {
	k := float64(r.Runs)
	divide(k, &r.Calls, &r.PeakLoad, &r.Failed, &r.Unfinished)
	r.Completion /= time.Duration(r.Runs)
	r.Seconds = r.Completion.Seconds()
	if r.Scenario == string(herd.Outage) {
		r.Failed, r.Completion, r.Seconds = 0, 0, 0
		divide(k, &r.UserCalls, &r.UserFailed, &r.DownX, &r.DownPeakX, &r.DegradedX, &r.TotalX)
		r.Recovery /= time.Duration(r.Runs)
		r.RecoveryS = r.Recovery.Seconds()
		r.Success /= time.Duration(r.Runs)
		r.SuccessS = r.Success.Seconds()
		for p := range r.FailedPct {
			r.FailedPct[p] /= k
		}
	}
	if r.isOverload() {
		r.finishOverload(k)
	}
}

// addRun adds what a run measured to r's sums; the first run of r
// (first) gives its timelines, of the phases given.
func (r *row) addRun(res herd.Result, first bool, phases herd.Phases) {
	r.Calls += float64(res.Calls)
	r.Completion += res.Completion
	r.PeakLoad += float64(res.PeakLoad)
	r.Failed += float64(res.Clients - res.Succeeded)
	r.Unfinished += float64(res.Unfinished())
	switch res.Scenario {
	case herd.Outage:
		r.add(res)
	case herd.Overload:
		r.addOverload(res, first)
	}
	if first {
		r.timeline, r.window = res.Load, res.Window
		r.base, r.phases = res.Outage.Base, phases
	}
}

// divide divides each of the sums by k: the sums of k runs become their
// means.
func divide(k float64, sums ...*float64) {
	for _, s := range sums {
		*s /= k
	}
}

// add adds what an outage run measured to r.
func (r *row) add(res herd.Result) {
	o, total := res.Outage, res.Outage.Total()
	r.UserCalls += float64(total.UserCalls)
	r.UserFailed += float64(total.UserFailed)
	r.DownX += o.Phases[herd.PhaseDown].Amplification()
	if o.Base > 0 {
		r.DownPeakX += float64(o.Phases[herd.PhaseDown].Peak) / o.Base
	}
	r.DegradedX += o.Phases[herd.PhaseDegraded].Amplification()
	r.TotalX += total.Amplification()
	r.Recovery += o.Recovery
	r.Recovered = r.Recovered && o.Recovered
	r.Success += o.SuccessRecovery
	r.SuccessRecovered = r.SuccessRecovered && o.SuccessRecovered
	for p, c := range o.Phases {
		r.FailedPct[p] += 100 * c.FailedShare()
	}
}

// jobCount is how many simulations sweep will run.
func jobCount(o *options) int { return rowCount(o) * o.runs }

// rowCount is how many rows a complete run prints.
func rowCount(o *options) int {
	if o.live {
		return len(o.strategies)
	}
	n := 0
	for _, sc := range o.scenarios {
		clients, strategies := o.plan(sc)
		n += len(clients) * len(strategies)
	}
	return n
}
