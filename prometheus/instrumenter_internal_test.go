package prombackoff

import (
	"fmt"
	"testing"

	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNamedSeriesAreBounded(t *testing.T) {
	in, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	first := in.named("op-0")
	if in.named("op-0") != first {
		t.Error("a second lookup of a name made its series again")
	}
	for i := 1; i < telemetry.MaxNames; i++ {
		in.named(fmt.Sprint("op-", i))
	}
	extra := in.named("request-1234")
	if in.named("request-1234") == extra {
		t.Error("past the bound, a name was kept")
	}
	if n := in.series.Len(); n != telemetry.MaxNames {
		t.Errorf("%d names kept, want %d", n, telemetry.MaxNames)
	}
	// Past the bound, the series are still the vectors' own.
	extra.success.Inc()
	in.named("request-1234").success.Inc()
	if got := testutil.ToFloat64(in.attempts.WithLabelValues("request-1234", "success")); got != 2 {
		t.Errorf("the counter of a name past the bound is %v, want 2", got)
	}
}
