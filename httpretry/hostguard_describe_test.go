package httpretry_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpretry"
)

// admitAll is a guard that admits every call.
type admitAll struct{}

func (admitAll) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (admitAll) Record(guard.Permit, guard.Outcome)                      {}

// A HostGuard reports the hosts that have a guard, without allocating.
func TestHostGuardDescribesItself(t *testing.T) {
	h := httpretry.PerHost(func(string) guard.Guard { return admitAll{} })
	if d := h.Describe(); d.Kind != "per_host" || len(d.Series) != 1 {
		t.Fatalf("Describe = %+v", d)
	}
	v := make([]float64, 1)
	h.ReadMetrics(v)
	if v[0] != 0 {
		t.Errorf("no host yet: %v hosts", v[0])
	}
	p, err := h.Allow(context.Background(), guard.Call{Attempt: 1}) // a call that is no Transport's: the host ""
	if err != nil {
		t.Fatal(err)
	}
	h.Record(p, guard.Outcome{})
	h.ReadMetrics(v)
	if v[0] != 1 {
		t.Errorf("one host asked: %v hosts, want 1", v[0])
	}
	if n := testing.AllocsPerRun(100, func() { h.ReadMetrics(v) }); n != 0 {
		t.Errorf("ReadMetrics: %v allocations, want 0", n)
	}
}
