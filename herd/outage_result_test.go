package herd_test

import (
	"testing"

	"github.com/herdsafe/backoff/herd"
)

func TestPhaseCounts(t *testing.T) {
	t.Parallel()
	if got := (herd.PhaseCounts{}).Amplification(); got != 0 {
		t.Errorf("the amplification of an empty phase = %v, want 0", got)
	}
	if got := (herd.PhaseCounts{UserCalls: 4, Calls: 10}).Amplification(); got != 2.5 {
		t.Errorf("10 calls for 4 user calls: amplification %v, want 2.5", got)
	}
	if got := (herd.PhaseCounts{}).FailedShare(); got != 0 {
		t.Errorf("the failed share of an empty phase = %v, want 0", got)
	}
	if got := (herd.PhaseCounts{UserCalls: 8, UserFailed: 2}).FailedShare(); got != 0.25 {
		t.Errorf("2 of 8 user calls failed: share %v, want 0.25", got)
	}
	o := herd.OutageResult{Phases: [herd.NumPhases]herd.PhaseCounts{
		{UserCalls: 1, UserFailed: 2, Refused: 3, Calls: 4, Peak: 5},
		{UserCalls: 10, UserFailed: 20, Refused: 30, Calls: 40, Peak: 50},
		{},
		{UserCalls: 100, UserFailed: 200, Refused: 300, Calls: 400, Peak: 7},
	}}
	if got, want := o.Total(), (herd.PhaseCounts{UserCalls: 111, UserFailed: 222, Refused: 333, Calls: 444, Peak: 50}); got != want {
		t.Errorf("Total = %+v, want %+v", got, want)
	}
	names := map[herd.Phase]string{herd.PhaseWarmup: "warmup", herd.PhaseDown: "down", herd.PhaseDegraded: "degraded",
		herd.PhaseHealthy: "healthy", herd.NumPhases: "phase(4)"}
	for p, want := range names {
		if got := p.String(); got != want {
			t.Errorf("Phase(%d).String() = %q, want %q", int(p), got, want)
		}
	}
}
