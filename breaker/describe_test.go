package breaker_test

import (
	"slices"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
)

// WriteMetrics puts each figure of a state and counts at the series
// Describe names for it, and ReadMetrics is WriteMetrics of the breaker's
// own State and Counts.
func TestWriteMetrics(t *testing.T) {
	series := (*breaker.Breaker)(nil).Describe().Series
	v := make([]float64, len(series))
	breaker.WriteMetrics(v, breaker.HalfOpen, breaker.Counts{
		Successes: 1, Failures: 2, Neutral: 3, Ignored: 4, Rejections: 5, Transitions: 6, Forced: 7, Slow: 8,
		ConsecutiveFailures: 99, // not a metric
	})
	want := map[string]float64{
		"breaker.state{closed}": 0, "breaker.state{open}": 0, "breaker.state{half-open}": 1,
		"breaker.state{forced-open}": 0, "breaker.state{forced-closed}": 0,
		"breaker.calls{success}": 1, "breaker.calls{failure}": 2, "breaker.calls{neutral}": 3, "breaker.calls{ignored}": 4,
		"breaker.refusals": 5, "breaker.transitions": 6, "breaker.forced_transitions": 7, "breaker.slow_calls": 8,
	}
	if len(want) != len(series) {
		t.Fatalf("%d series described, want %d", len(series), len(want))
	}
	for i, s := range series {
		k := s.Metric.Name
		if s.Value != "" {
			k += "{" + s.Value + "}"
		}
		if got, ok := want[k]; !ok || v[i] != got {
			t.Errorf("%s = %v, want %v (known: %v)", k, v[i], got, ok)
		}
	}

	b := tripped(t, newMock(), time.Minute, breaker.WithConsecutiveFailures(1))
	read, written := make([]float64, len(series)), make([]float64, len(series))
	b.ReadMetrics(read)
	breaker.WriteMetrics(written, b.State(), b.Counts())
	if !slices.Equal(read, written) {
		t.Errorf("ReadMetrics = %v, WriteMetrics of State and Counts = %v", read, written)
	}
}

// LoadOf is Refusing in every state but the closed ones, and Load is
// LoadOf of the breaker's state.
func TestLoadOf(t *testing.T) {
	for _, s := range []breaker.State{breaker.Closed, breaker.Open, breaker.HalfOpen, breaker.ForcedOpen, breaker.ForcedClosed} {
		want := s != breaker.Closed && s != breaker.ForcedClosed
		if got := breaker.LoadOf(s); got.Refusing != want || got.Full != nil || got.Capacity != 0 {
			t.Errorf("LoadOf(%v) = %+v, want Refusing %v and nothing else", s, got, want)
		}
	}
	b := tripped(t, newMock(), time.Minute)
	if got := b.Load(); got != breaker.LoadOf(breaker.Open) {
		t.Errorf("Load of an open breaker = %+v, want LoadOf(Open)", got)
	}
}
