package otelbackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/guard"
)

// quota is a guard this module has never heard of: it is observed
// through its Description alone.
type quota struct{ left, refused float64 }

var (
	quotaTier     = &guard.Label{Attribute: "quota.tier", Name: "tier"}
	quotaLeft     = &guard.Metric{Name: "quota.left", Kind: guard.Level, Unit: "{call}", Help: "Calls left in the quota.", Label: quotaTier}
	quotaRefusals = &guard.Metric{Name: "quota.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the quota refused."}
	quotaDesc     = guard.Description{Kind: "quota", Series: []guard.Series{{Metric: quotaLeft, Value: "gold"}, {Metric: quotaRefusals}}}
)

func (q *quota) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (q *quota) Record(guard.Permit, guard.Outcome)                      {}
func (q *quota) Describe() guard.Description                             { return quotaDesc }
func (q *quota) ReadMetrics(v []float64)                                 { v[0], v[1] = q.left, q.refused }

// A guard defined outside the repository is observed by Observe as the
// repository's own are: each of its metrics an instrument of its kind,
// with guard.name and its label's attribute, read at each collection.
func TestObserveAGuardOfYourOwn(t *testing.T) {
	h := newHarness(t)
	q := &quota{left: 7, refused: 1}
	reg, err := h.in.Observe("api", q)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.points(t, "backoff.quota.left"); got["guard.name=api,quota.tier=gold"] != 7 {
		t.Errorf("backoff.quota.left: %v, want 7 for api, gold", got)
	}
	q.refused = 3
	if got := h.points(t, "backoff.quota.refusals"); got["guard.name=api"] != 3 {
		t.Errorf("backoff.quota.refusals: %v, want 3 for api", got)
	}
	if kind := h.kind(t, "backoff.quota.refusals"); kind != "counter" {
		t.Errorf("backoff.quota.refusals is a %s, want a counter", kind)
	}
	if kind := h.kind(t, "backoff.quota.left"); kind != "up-down counter" {
		t.Errorf("backoff.quota.left is a %s, want an up-down counter", kind)
	}
	if _, err := h.in.Observe("api", &quota{}); !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), `"api" is already observed`) {
		t.Errorf("a second quota named api: %v, want the name taken", err)
	}
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	if got := h.points(t, "backoff.quota.refusals"); len(got) != 0 {
		t.Errorf("after Unregister: %v, want no point", got)
	}
}

// Observe takes a name once for each kind of guard: a second breaker of
// the name is refused, a guard of another kind is not.
func TestObserveNameTakenByKind(t *testing.T) {
	h := newHarness(t)
	if _, err := h.in.Observe("payments", breaker.New()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.in.Observe("payments", breaker.New()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a second breaker named payments: %v, want it refused", err)
	}
	in := chaos.New(chaos.Config{})
	if _, err := h.in.Observe("payments", in); err != nil {
		t.Errorf("a fault injector named as a breaker is: %v", err)
	}
	_ = in.Run(context.Background(), func(context.Context) error { return nil })
	if got := h.points(t, "backoff.chaos.calls"); got["guard.name=payments"] != 1 {
		t.Errorf("backoff.chaos.calls: %v, want 1 call", got)
	}
	var nilQuota *quota
	if _, err := h.in.Observe("q", nilQuota); !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "Observe was given a nil guard") {
		t.Errorf("a typed nil guard: %v, want it named", err)
	}
}
