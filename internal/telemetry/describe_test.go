package telemetry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
)

// quota is a guard this package has never heard of: it is observed
// through its Description alone.
type quota struct {
	desc      guard.Description
	left, out float64
}

var (
	quotaLabel = &guard.Label{Attribute: "quota.tier", Name: "tier"}
	quotaLeft  = &guard.Metric{Name: "quota.left", Kind: guard.Level, Unit: "{call}", Help: "Calls left.", Label: quotaLabel}
	quotaOut   = &guard.Metric{Name: "quota.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls refused."}
)

func newQuota() *quota {
	return &quota{desc: guard.Description{Kind: "quota", Series: []guard.Series{
		{Metric: quotaLeft, Value: "gold"}, {Metric: quotaOut},
	}}}
}

func (q *quota) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (q *quota) Record(guard.Permit, guard.Outcome)                      {}
func (q *quota) Describe() guard.Description                             { return q.desc }
func (q *quota) ReadMetrics(v []float64)                                 { v[0], v[1] = q.left, q.out }

// A guard defined outside the repository is observed as its own are: its
// kind, its series and its values are those it describes.
func TestGuardOfYourOwnObserved(t *testing.T) {
	q := newQuota()
	o := Guard("Observe", q)
	if err := o.Check(setting.Package("otelbackoff"), "api"); err != nil {
		t.Fatal(err)
	}
	if o.Kind != "quota" || len(o.Metrics()) != 2 {
		t.Errorf("kind %q, metrics %v; want quota, with two metrics", o.Kind, o.Metrics())
	}
	q.left, q.out = 7, 3
	want(t, "quota", read(t, o), map[string]float64{"quota.left{gold}": 7, "quota.refusals": 3})
}

// A Description that cannot be reported is an invalid configuration,
// named, when the guard is observed, rather than a panic at collection.
func TestHostileDescriptions(t *testing.T) {
	const settings = setting.Package("prombackoff")
	for name, c := range map[string]struct {
		desc guard.Description
		says string
	}{
		"no kind":         {guard.Description{Series: []guard.Series{{Metric: quotaOut}}}, "no Kind"},
		"no series":       {guard.Description{Kind: "quota"}, "has no Series"},
		"nil metric":      {guard.Description{Kind: "quota", Series: []guard.Series{{}}}, "series 0 has no metric name"},
		"no metric name":  {guard.Description{Kind: "quota", Series: []guard.Series{{Metric: &guard.Metric{}}}}, "no metric name"},
		"value, no label": {guard.Description{Kind: "quota", Series: []guard.Series{{Metric: quotaOut, Value: "gold"}}}, `label value "gold" but no Label`},
	} {
		q := newQuota()
		q.desc = c.desc
		err := Guard("Observe", q).Check(settings, "api")
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Check = %v, want an invalid configuration saying %q", name, err, c.says)
		}
	}
	var nilQuota *quota
	if err := Guard("Observe", nilQuota).Check(settings, "api"); !errors.Is(err, backoff.ErrInvalidConfiguration) ||
		!strings.Contains(err.Error(), "Observe was given a nil guard") {
		t.Errorf("a typed nil guard: %v, want a nil guard reported", err)
	}
}

// No non-test file of this package names a guard: the metrics are read
// through the guards' Descriptions (guards.go), and the errors named by
// their own ErrorType and RetryCause methods (errortype.go), so that a
// guard added later is observed and named with no change here.
func TestNamesNoGuard(t *testing.T) {
	telemetrytest.NamesNoGuard(t)
}
