package prombackoff_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/policy"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape serves reg's metrics on a loopback address, as a service does,
// and returns the exposition text a scraper reads there.
func scrape(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %s, Content-Type %q, want 200 and the text format", resp.Status, resp.Header.Get("Content-Type"))
	}
	return string(body)
}

func TestScrape(t *testing.T) {
	in, reg := newInstrumenter(t, prombackoff.WithNamespace("myapp"))
	// The breaker reads a clock of its own, so that it is open when it is
	// scraped, outside the bubble of the retry's virtual time.
	cb := breaker.New(breaker.WithConsecutiveFailures(3), breaker.WithClock(clock.NewMock()))
	if _, err := in.Observe("payments", cb); err != nil {
		t.Fatal(err)
	}
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(4), backoff.WithInstrumenter(in.Named("charge")),
			backoff.WithBackOff(backoff.NewConstantBackOff(250*time.Millisecond))),
		policy.Guard(cb),
	)
	synctest.Test(t, func(t *testing.T) {
		_, err := policy.Do(context.Background(), p, failing(10, errUnavailable))
		if !errors.Is(err, breaker.ErrCircuitOpen) {
			t.Fatalf("Do = %v, want ErrCircuitOpen after 3 failures", err)
		}
	})

	text := scrape(t, reg)
	for _, line := range []string{
		"# HELP myapp_retries_total Retries scheduled after a failed attempt, before their wait, by retry number and error type.",
		"# TYPE myapp_retries_total counter",
		`myapp_retries_total{error_type="` + typeUnavailable + `",name="charge",retry_num="1"} 1`,
		`myapp_retries_total{error_type="` + typeUnavailable + `",name="charge",retry_num="3"} 1`,
		"# TYPE myapp_attempts_total counter",
		`myapp_attempts_total{name="charge",outcome="refused"} 1`,
		"# TYPE myapp_give_ups_total counter",
		`myapp_give_ups_total{cause="circuit_open",name="charge"} 1`,
		"# TYPE myapp_wait_seconds histogram",
		`myapp_wait_seconds_bucket{name="charge",le="0.25"} 3`,
		`myapp_wait_seconds_sum{name="charge"} 0.75`,
		"# TYPE myapp_breaker_state gauge",
		`myapp_breaker_state{name="payments",state="open"} 1`,
		`myapp_breaker_transitions_total{name="payments"} 1`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("the scrape has no line %q", line)
		}
	}

	// The text parses, and each family has the type and the labels its
	// name promises.
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	want := map[string]struct {
		typ    dto.MetricType
		labels []string
		total  float64 // the sum of the samples (of the counts, for a histogram)
	}{
		"myapp_attempts_total":                   {dto.MetricType_COUNTER, []string{"name", "outcome"}, 4},
		"myapp_retries_total":                    {dto.MetricType_COUNTER, []string{"error_type", "name", "retry_num"}, 3},
		"myapp_give_ups_total":                   {dto.MetricType_COUNTER, []string{"cause", "name"}, 1},
		"myapp_wait_seconds":                     {dto.MetricType_HISTOGRAM, []string{"name"}, 3},
		"myapp_breaker_state":                    {dto.MetricType_GAUGE, []string{"name", "state"}, 1},
		"myapp_breaker_transitions_total":        {dto.MetricType_COUNTER, []string{"name"}, 1},
		"myapp_breaker_refusals_total":           {dto.MetricType_COUNTER, []string{"name"}, 1},
		"myapp_breaker_calls_total":              {dto.MetricType_COUNTER, []string{"name", "outcome"}, 3},
		"myapp_breaker_forced_transitions_total": {dto.MetricType_COUNTER, []string{"name"}, 0},
		"myapp_breaker_slow_calls_total":         {dto.MetricType_COUNTER, []string{"name"}, 0},
	}
	if len(families) != len(want) {
		t.Errorf("%d families, want %d", len(families), len(want))
	}
	for name, w := range want {
		f, ok := families[name]
		if !ok {
			t.Errorf("no family %s", name)
			continue
		}
		if f.GetType() != w.typ {
			t.Errorf("%s: type %v, want %v", name, f.GetType(), w.typ)
		}
		total := 0.0
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName())
			}
			if !slices.Equal(labels, w.labels) {
				t.Errorf("%s: labels %v, want %v", name, labels, w.labels)
			}
			switch {
			case m.Counter != nil:
				total += m.GetCounter().GetValue()
			case m.Gauge != nil:
				total += m.GetGauge().GetValue()
			case m.Histogram != nil:
				total += float64(m.GetHistogram().GetSampleCount())
			}
		}
		if total != w.total {
			t.Errorf("%s: samples add up to %v, want %v", name, total, w.total)
		}
	}
}
