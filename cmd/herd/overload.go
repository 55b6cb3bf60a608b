package main

import (
	"time"

	"github.com/herdsafe/backoff/herd"
)

// defaultOverloadClients is the fleet of the overload scenario unless
// -clients says otherwise.
const defaultOverloadClients = 10

// overloadSteps names the stages after which the overload scenario
// measures how long the fleet's limit took to settle, as the columns
// name them: the load stepping up, half of the server's workers lost, and
// back. They are the stages of herd.DefaultStages after its warm-up.
var overloadSteps = []struct{ stage, column string }{
	{"overload", "load_up_s"},
	{"capacity-down", "capacity_down_s"},
	{"capacity-up", "capacity_up_s"},
}

// overloadRow is what a row of the overload scenario adds to a row: the
// figures of herd.OverloadResult's measured stages, averaged over the
// runs.
type overloadRow struct {
	// Goodput is the calls answered in time per second over the server's
	// capacity; P50X and P99X the median and 99th percentile of the
	// latency of the calls sent, relative to the no-load latency.
	Goodput, P50X, P99X float64
	// P99P99 is the 99th percentile relative to the no-load 99th
	// percentile, and ServerRefused the share of the calls sent that the
	// server's queue refused or dropped.
	P99P99, ServerRefused float64
	// TimedOut is the share of the calls sent that their client gave up
	// at the timeout, and Refused the share of the calls started that a
	// guard refused.
	TimedOut, Refused float64
	// Settle is, per step of overloadSteps, how long the fleet's limit
	// took to settle after it, in seconds, and settled whether it did in
	// every run; Settled says that it did after every step, Adaptive that
	// the fleet's limit moves at all (otherwise Settle means nothing).
	Settle   []float64
	settled  []bool
	Settled  bool
	Adaptive bool

	// For the charts, from the first run: the calls answered in time per
	// window, the fleet's limit per window, the 99th percentile per bin,
	// and the stages, the capacity and the no-load latency.
	succeeded, limit []int
	p99              []time.Duration
	bin              time.Duration
	stages           []herd.Stage
	capacity         float64
	noLoad           time.Duration
}

// isOverload reports whether r is a row of the overload scenario.
func (r row) isOverload() bool { return r.Scenario == string(herd.Overload) }

// overloadConfig completes the configuration of an overload run: its
// server, and the guards of the strategy named like st for the fleet of
// cfg, since a fixed bulkhead is sized for the fleet.
func (o *options) overloadConfig(cfg herd.Config, st herd.Strategy) herd.Config {
	cfg.Server = o.overloadServer
	if o.serverModel == "steady" {
		steady := herd.SteadyServer()
		if cfg.Server.Service == (herd.Delay{}) {
			cfg.Server.Service = steady.Service
		}
		cfg.Server.Tail, cfg.Server.Arrivals = steady.Tail, steady.Arrivals
	}
	cfg.Server.Queue = herd.Queue{Limit: o.queueLimit, LIFO: o.queue == "lifo", DropExpired: o.dropExpired}
	cfg.NewBackOff = nil
	for _, s := range herd.OverloadStrategies(cfg) {
		if s.Name == st.Name {
			cfg.NewGuards = s.NewGuards
		}
	}
	return cfg
}

// overloadStrategyNames are the names of the overload strategies.
func overloadStrategyNames() []string {
	return strategyList(herd.OverloadStrategies(herd.Config{Clients: defaultOverloadClients}))
}

// addOverload adds what an overload run measured to r, and keeps the
// timelines of the first run for the charts.
func (r *row) addOverload(res herd.Result, keep bool) {
	o, m := res.Overload, res.Overload.Measured
	r.Goodput += m.Goodput
	r.P50X += m.P50X(o.NoLoad)
	r.P99X += m.P99X(o.NoLoad)
	if o.NoLoadP99 > 0 {
		r.P99P99 += float64(m.P99) / float64(o.NoLoadP99)
	}
	if sent := m.Started - m.Refused; sent > 0 {
		r.TimedOut += float64(m.TimedOut) / float64(sent)
		r.ServerRefused += float64(m.ServerRefused) / float64(sent)
	}
	if m.Started > 0 {
		r.Refused += float64(m.Refused) / float64(m.Started)
	}
	if r.Settle == nil {
		r.Settle, r.settled = make([]float64, len(overloadSteps)), make([]bool, len(overloadSteps))
		for i := range r.settled {
			r.settled[i] = true
		}
	}
	r.Adaptive = o.Adaptive
	for i, step := range overloadSteps {
		found := false
		for _, st := range o.Stages {
			if st.Name == step.stage {
				r.Settle[i] += st.Settle.Seconds()
				r.settled[i] = r.settled[i] && st.Settled
				found = true
			}
		}
		r.settled[i] = r.settled[i] && found
	}
	if keep {
		r.succeeded, r.limit, r.p99, r.bin = o.Succeeded, o.Limit, o.P99, o.Bin
		r.capacity, r.noLoad = o.Capacity, o.NoLoad
		r.stages = r.stages[:0]
		for _, st := range o.Stages {
			r.stages = append(r.stages, st.Stage)
		}
	}
}

// finishOverload turns the sums of k runs into their means.
func (r *row) finishOverload(k float64) {
	r.Failed, r.Completion, r.Seconds = 0, 0, 0
	divide(k, &r.Goodput, &r.P50X, &r.P99X, &r.P99P99, &r.TimedOut, &r.ServerRefused, &r.Refused)
	r.Settled = r.Adaptive
	for i := range r.Settle {
		r.Settle[i] /= k
		r.Settled = r.Settled && r.settled[i]
	}
}
