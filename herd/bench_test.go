package herd_test

import (
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// benchSimulate measures runs of cfg, and reports the calls of one and
// the time per call.
func benchSimulate(b *testing.B, cfg herd.Config) {
	var calls int
	for b.Loop() {
		calls = herd.Simulate(cfg).Calls
	}
	b.ReportMetric(float64(calls), "calls/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
}

// BenchmarkSimulate measures one run of each strategy on 1000 clients.
// Compare strategies to each other within one run: the cost follows the
// number of calls a strategy makes.
func BenchmarkSimulate(b *testing.B) {
	for _, sc := range fleetScenarios {
		for _, st := range strategies() {
			b.Run(string(sc)+"/"+st.Name, func(b *testing.B) {
				benchSimulate(b, herd.Config{Scenario: sc, Clients: 1000, NewBackOff: st.NewBackOff, Seed: 1})
			})
		}
	}
}

// BenchmarkOutage measures one run of each outage strategy on the
// defaults of the command: 100 clients over the default phases.
func BenchmarkOutage(b *testing.B) {
	for _, st := range herd.OutageStrategies() {
		b.Run(st.Name, func(b *testing.B) {
			benchSimulate(b, herd.Config{Scenario: herd.Outage, Clients: 100, NewBackOff: st.NewBackOff, NewGuards: st.NewGuards, Seed: 1})
		})
	}
}

// BenchmarkOverload measures one run of each overload strategy on the
// defaults of the command: 10 clients against 200 workers over the
// default stages.
func BenchmarkOverload(b *testing.B) {
	cfg := herd.Config{Scenario: herd.Overload, Clients: 10, Seed: 1}
	for _, st := range herd.OverloadStrategies(cfg) {
		b.Run(st.Name, func(b *testing.B) {
			cfg := cfg
			cfg.NewGuards = st.NewGuards
			benchSimulate(b, cfg)
		})
	}
}
