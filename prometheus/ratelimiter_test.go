package prombackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/ratelimit"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A rate limiter as a scrape shows it: its rate, burst and tokens, and its
// refusals, read from its Stats.
func TestObserveRateLimiter(t *testing.T) {
	in, reg := newInstrumenter(t)
	l := ratelimit.New(10, 2, ratelimit.WithClock(clock.NewMock()))
	for range 3 { // two admitted, one refused
		_, _ = l.Allow(context.Background(), guard.Call{Attempt: 1})
	}
	r, err := in.Observe("api", l)
	if err != nil {
		t.Fatal(err)
	}
	const want = `# HELP backoff_ratelimit_burst The calls the rate limiter admits at once, its bucket's size.
# TYPE backoff_ratelimit_burst gauge
backoff_ratelimit_burst{name="api"} 2
# HELP backoff_ratelimit_rate The calls a second the rate limiter admits on average.
# TYPE backoff_ratelimit_rate gauge
backoff_ratelimit_rate{name="api"} 10
# HELP backoff_ratelimit_refusals_total Calls the rate limiter refused for want of a token in time.
# TYPE backoff_ratelimit_refusals_total counter
backoff_ratelimit_refusals_total{name="api"} 1
# HELP backoff_ratelimit_tokens The tokens in the rate limiter's bucket: below 1 no call is admitted at once, below 0 waiting calls have reserved tokens to come.
# TYPE backoff_ratelimit_tokens gauge
backoff_ratelimit_tokens{name="api"} 0
# HELP backoff_ratelimit_waited_total Calls the rate limiter admitted after a wait.
# TYPE backoff_ratelimit_waited_total counter
backoff_ratelimit_waited_total{name="api"} 0
# HELP backoff_ratelimit_waiting Calls waiting for their token.
# TYPE backoff_ratelimit_waiting gauge
backoff_ratelimit_waiting{name="api"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if err := r.Unregister(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Observe("api", (*ratelimit.Limiter)(nil)); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("Observe of a nil limiter = %v, want ErrInvalidConfiguration", err)
	}
}
