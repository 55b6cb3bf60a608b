package prombackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNewRejectsInvalidArguments(t *testing.T) {
	cases := []struct {
		name string
		reg  prometheus.Registerer
		opt  prombackoff.Option
		says string
	}{
		{"nil_registerer", nil, prombackoff.WithMaxRetryNum(3), "nil Registerer"},
		{"nil_option", prometheus.NewRegistry(), nil, "New was given a nil Option"},
		{"bad_namespace", prometheus.NewRegistry(), prombackoff.WithNamespace("my-app"), "WithNamespace"},
		{"namespace_with_a_digit_first", prometheus.NewRegistry(), prombackoff.WithNamespace("1app"), "WithNamespace"},
		{"zero_max_retry_num", prometheus.NewRegistry(), prombackoff.WithMaxRetryNum(0), "WithMaxRetryNum"},
		{"max_retry_num_above_the_bound", prometheus.NewRegistry(), prombackoff.WithMaxRetryNum(prombackoff.MaxRetryNum + 1), "WithMaxRetryNum"},
		{"max_retry_num_1e9", prometheus.NewRegistry(), prombackoff.WithMaxRetryNum(1e9), "WithMaxRetryNum"},
		{"nil_error_type", prometheus.NewRegistry(), prombackoff.WithErrorType(nil), "WithErrorType"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := prombackoff.New(c.reg, c.opt)
			if in != nil || !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("New = %v, %v; want nil and an ErrInvalidConfiguration naming %s", in, err, c.says)
			}
		})
	}
}

func TestWithNamespace(t *testing.T) {
	for _, c := range []struct{ ns, metric string }{
		{"myapp", "myapp_retries_total"},
		{"", "retries_total"},
	} {
		in, reg := newInstrumenter(t, prombackoff.WithNamespace(c.ns))
		if _, err := backoff.Do(context.Background(), failing(1, errTransient), telemetrytest.Every1s(in, telemetrytest.NoWait)...); err != nil {
			t.Fatal(err)
		}
		if n, err := testutil.GatherAndCount(reg, c.metric); n != 1 || err != nil {
			t.Errorf("namespace %q: %d series of %s (%v), want 1", c.ns, n, c.metric, err)
		}
	}
}

// Two Instrumenters on one registry count into the same metrics.
func TestInstrumentersShareARegistry(t *testing.T) {
	in, reg := newInstrumenter(t)
	in2, err := prombackoff.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []*prombackoff.Instrumenter{in, in2} {
		if _, err := backoff.Do(context.Background(), failing(1, errTransient), telemetrytest.Every1s(i, telemetrytest.NoWait)...); err != nil {
			t.Fatal(err)
		}
	}
	expect(t, reg, retriesHead+`backoff_retries_total{error_type="*errors.errorString",name="fetch",retry_num="1"} 2
`, "backoff_retries_total")
}

// A metric of the same name with other labels, registered by other code,
// makes New fail, and leave nothing registered.
func TestNewLeavesNothingOnAConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "backoff_give_ups_total", Help: "Someone else's."}, []string{"reason"}))
	if in, err := prombackoff.New(reg); in != nil || !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("New = %v, %v; want nil and ErrInvalidConfiguration", in, err)
	}
	// What New registered before the conflict is gone.
	if ok := reg.Unregister(prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "backoff", Name: "attempts_total", Help: "Attempts made by retries, by how they ended: success, failure, or refused by a guard."}, []string{"name", "outcome"})); ok {
		t.Error("New left backoff_attempts_total registered")
	}
}

func TestWithErrorType(t *testing.T) {
	in, reg := newInstrumenter(t, prombackoff.WithErrorType(func(err error) string {
		if errors.Is(err, errTransient) {
			return "transient"
		}
		return "" // the package's rule
	}))
	calls := 0
	op := failing(0, nil)
	if _, err := backoff.Do(context.Background(), func(ctx context.Context) (int, error) {
		switch calls++; calls {
		case 1:
			return 0, errTransient
		case 2:
			return 0, errUnavailable
		}
		return op(ctx)
	}, telemetrytest.Every1s(in, telemetrytest.NoWait)...); err != nil {
		t.Fatal(err)
	}
	expect(t, reg, retriesHead+`backoff_retries_total{error_type="`+typeUnavailable+`",name="fetch",retry_num="2"} 1
backoff_retries_total{error_type="transient",name="fetch",retry_num="1"} 1
`, "backoff_retries_total")
}
