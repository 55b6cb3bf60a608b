package prombackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

var errTransient = errors.New("transient")

// unavailable is an error type of the test's, to be named by error_type.
type unavailable struct{}

func (*unavailable) Error() string { return "unavailable" }

var errUnavailable = &unavailable{}

const typeUnavailable = "*prombackoff_test.unavailable"

// newInstrumenter returns an Instrumenter on a registry of its own.
func newInstrumenter(t *testing.T, opts ...prombackoff.Option) (*prombackoff.Instrumenter, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	in, err := prombackoff.New(reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return in, reg
}

// failing returns an operation that fails with err its first n calls.
func failing(n int, err error) func(context.Context) (int, error) {
	calls := 0
	return func(context.Context) (int, error) {
		if calls++; calls <= n {
			return 0, err
		}
		return calls, nil
	}
}

// expect fails t unless reg's metrics names are exactly text, in the
// exposition format (HELP and TYPE lines included).
func expect(t *testing.T, reg prometheus.Gatherer, text string, names ...string) {
	t.Helper()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(text), names...); err != nil {
		t.Error(err)
	}
}

// Help and type lines of the metrics, for expect.
const (
	attemptsHead = `# HELP backoff_attempts_total Attempts made by retries, by how they ended: success, failure, or refused by a guard.
# TYPE backoff_attempts_total counter
`
	retriesHead = `# HELP backoff_retries_total Retries scheduled after a failed attempt, before their wait, by retry number and error type.
# TYPE backoff_retries_total counter
`
	giveUpsHead = `# HELP backoff_give_ups_total Retried calls that failed: the driver gave up, by why.
# TYPE backoff_give_ups_total counter
`
)
