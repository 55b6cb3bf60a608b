package prombackoff_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/policy"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// instant is a clock on which each wait is over as soon as it starts: it
// moves its time on by the wait. It keeps the example quick; a service
// keeps the default clock.
type instant struct{ *clock.Mock }

func (c instant) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.Add(d)
	return t
}

// Retries counted as stamina counts them, and a breaker's state, on a
// registry of the application's; the example prints what a scrape of
// /metrics shows of them.
func Example() {
	reg := prometheus.NewRegistry()
	in, err := prombackoff.New(reg, prombackoff.WithNamespace("myapp"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cb := breaker.New()
	if _, err := in.Observe("users-db", cb); err != nil {
		fmt.Println(err)
		return
	}
	p := policy.New(
		policy.Retry(
			backoff.WithBackOff(backoff.NewConstantBackOff(100*time.Millisecond)),
			backoff.WithInstrumenter(in.Named("load-user")),
			backoff.WithClock(instant{clock.NewMock()})),
		policy.Guard(cb),
	)

	calls := 0
	loadUser := func(context.Context) (string, error) {
		if calls++; calls < 3 {
			return "", errors.New("connection refused")
		}
		return "Ada", nil
	}
	user, err := policy.Do(context.Background(), p, loadUser)
	fmt.Println(user, err)

	// What a scrape of promhttp.HandlerFor(reg, ...) returns, less the
	// histogram's buckets and the comments.
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	lines := bufio.NewScanner(rec.Body)
	for lines.Scan() {
		line := lines.Text()
		if !strings.HasPrefix(line, "#") && !strings.Contains(line, "_bucket") {
			fmt.Println(line)
		}
	}
	// Output:
	// Ada <nil>
	// myapp_attempts_total{name="load-user",outcome="failure"} 2
	// myapp_attempts_total{name="load-user",outcome="refused"} 0
	// myapp_attempts_total{name="load-user",outcome="success"} 1
	// myapp_breaker_calls_total{name="users-db",outcome="failure"} 2
	// myapp_breaker_calls_total{name="users-db",outcome="ignored"} 0
	// myapp_breaker_calls_total{name="users-db",outcome="neutral"} 0
	// myapp_breaker_calls_total{name="users-db",outcome="success"} 1
	// myapp_breaker_forced_transitions_total{name="users-db"} 0
	// myapp_breaker_refusals_total{name="users-db"} 0
	// myapp_breaker_slow_calls_total{name="users-db"} 0
	// myapp_breaker_state{name="users-db",state="closed"} 1
	// myapp_breaker_state{name="users-db",state="forced-closed"} 0
	// myapp_breaker_state{name="users-db",state="forced-open"} 0
	// myapp_breaker_state{name="users-db",state="half-open"} 0
	// myapp_breaker_state{name="users-db",state="open"} 0
	// myapp_breaker_transitions_total{name="users-db"} 0
	// myapp_retries_total{error_type="*errors.errorString",name="load-user",retry_num="1"} 1
	// myapp_retries_total{error_type="*errors.errorString",name="load-user",retry_num="2"} 1
	// myapp_wait_seconds_sum{name="load-user"} 0.2
	// myapp_wait_seconds_count{name="load-user"} 2
}
