package prombackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// quota is a guard this module has never heard of: it is observed
// through its Description alone.
type quota struct{ left, refused float64 }

var (
	quotaTier     = &guard.Label{Attribute: "quota.tier", Name: "tier"}
	quotaLeft     = &guard.Metric{Name: "quota.left", Kind: guard.Level, Unit: "{call}", Help: "Calls left in the quota.", Label: quotaTier}
	quotaRefusals = &guard.Metric{Name: "quota.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the quota refused."}
	quotaDesc     = guard.Description{Kind: "quota", Series: []guard.Series{
		{Metric: quotaLeft, Value: "gold"}, {Metric: quotaLeft, Value: "silver"}, {Metric: quotaRefusals},
	}}
)

func (q *quota) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (q *quota) Record(guard.Permit, guard.Outcome)                      {}
func (q *quota) Describe() guard.Description                             { return quotaDesc }
func (q *quota) ReadMetrics(v []float64)                                 { v[0], v[1], v[2] = q.left, 2*q.left, q.refused }

// A guard defined outside the repository is observed by Observe as the
// repository's own are: a scrape shows its metrics, named after the
// namespace, with the guard's name and its label.
func TestObserveAGuardOfYourOwn(t *testing.T) {
	in, reg := newInstrumenter(t)
	q := &quota{left: 7, refused: 1}
	r, err := in.Observe("api", q)
	if err != nil {
		t.Fatal(err)
	}
	q.refused = 3
	const want = `# HELP backoff_quota_left Calls left in the quota.
# TYPE backoff_quota_left gauge
backoff_quota_left{name="api",tier="gold"} 7
backoff_quota_left{name="api",tier="silver"} 14
# HELP backoff_quota_refusals_total Calls the quota refused.
# TYPE backoff_quota_refusals_total counter
backoff_quota_refusals_total{name="api"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if _, err := in.Observe("api", &quota{}); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a second quota named api: %v, want ErrInvalidConfiguration", err)
	}
	if err := r.Unregister(); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Errorf("after Unregister: %d series (%v), want none", n, err)
	}
}

// Observe takes a name once for each kind of guard, and refuses a
// Description with a label value but no label.
func TestObserveNameTakenByKind(t *testing.T) {
	in, _ := newInstrumenter(t)
	if _, err := in.Observe("payments", breaker.New()); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Observe("payments", breaker.New()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a second breaker named payments: %v, want it refused", err)
	}
	bad := &describer{guard.Description{Kind: "quota", Series: []guard.Series{{Metric: quotaRefusals, Value: "gold"}}}}
	if _, err := in.Observe("api", bad); !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "no Label") {
		t.Errorf("a label value with no label: %v, want it named", err)
	}
}

// describer is a guard.Describer of a given Description, reading zeros.
type describer struct{ d guard.Description }

func (d *describer) Describe() guard.Description { return d.d }
func (d *describer) ReadMetrics([]float64)       {}
