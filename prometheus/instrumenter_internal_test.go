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

// The retry_num labels are made on demand, up to the cap: the retries
// below 100 allocate nothing for theirs, and New costs the same whatever
// the cap.
func TestRetryNumLabels(t *testing.T) {
	in, err := New(prometheus.NewRegistry(), WithMaxRetryNum(MaxRetryNum))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]string{0: "1000+", 1: "1", 99: "99", 150: "150", 999: "999", 1000: "1000+", 1 << 40: "1000+"} {
		if got := in.retryNum(k); got != want {
			t.Errorf("retryNum(%d) = %q, want %q", k, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		for k := 1; k < 100; k++ {
			_ = in.retryNum(k)
		}
	}); n != 0 {
		t.Errorf("the labels of retries 1 to 99 allocate %v times", n)
	}
	newWith := func(n int) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := New(prometheus.NewRegistry(), WithMaxRetryNum(n)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if small, large := newWith(100), newWith(MaxRetryNum); large > small {
		t.Errorf("New allocates %v times with WithMaxRetryNum(%d), %v with 100", large, MaxRetryNum, small)
	}
}
