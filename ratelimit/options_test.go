package ratelimit_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/ratelimit"
	"golang.org/x/time/rate"
)

// Every setting New cannot use makes a Limiter that refuses every call
// with ErrInvalidConfiguration naming the setting; none admits anything
// or panics, and a Policy with it runs nothing.
func TestInvalidConfiguration(t *testing.T) {
	var nilClock clock.Clock
	var nilMock *clock.Mock
	cases := []struct {
		name  string
		l     *ratelimit.Limiter
		names string
	}{
		{"zero rate", ratelimit.New(0, 1), "ratelimit: New was given the rate 0; it must be a positive, finite number of calls a second"},
		{"negative rate", ratelimit.New(-1, 1), "rate -1"},
		{"NaN rate", ratelimit.New(rate.Limit(math.NaN()), 1), "rate NaN"},
		{"rate.Inf", ratelimit.New(rate.Inf, 1), "infinite rate"},
		{"-Inf rate", ratelimit.New(rate.Limit(math.Inf(-1)), 1), "infinite rate"},
		{"zero burst", ratelimit.New(1, 0), "ratelimit: New was given the burst 0; it must be at least 1"},
		{"negative burst", ratelimit.New(1, -3), "burst -3"},
		{"zero max wait", ratelimit.New(1, 1, ratelimit.WithMaxWait(0)), "WithMaxWait was given 0s"},
		{"negative max wait", ratelimit.New(1, 1, ratelimit.WithMaxWait(-time.Second)), "WithMaxWait was given -1s"},
		{"nil clock", ratelimit.New(1, 1, ratelimit.WithClock(nilClock)), "ratelimit: WithClock was given a nil clock"},
		{"typed nil clock", ratelimit.New(1, 1, ratelimit.WithClock(nilMock)), "ratelimit: WithClock was given a nil *clock.Mock"},
		{"nil option", ratelimit.New(1, 1, nil), "ratelimit: New was given a nil Option"},
		{"zero Limiter", &ratelimit.Limiter{}, "ratelimit: a zero or nil Limiter; make one with New"},
		{"nil Limiter", nil, "ratelimit: a zero or nil Limiter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			guardtest.Refuses(t, c.l, guardtest.Invalid(t, c.l, c.names))
			c.l.Record(guard.Permit{}, guard.Outcome{}) // no panic
			if s := c.l.Stats(); s != (ratelimit.Stats{}) {
				t.Errorf("Stats = %+v, want zero", s)
			}
		})
	}
}

// The mistakes of New's arguments are all reported, in their order: the
// rate's, the burst's and the first bad option's; of the options, the
// first only, a good option after it not clearing it.
func TestEveryArgumentsMistakeIsReported(t *testing.T) {
	err := ratelimit.New(0, 0, ratelimit.WithMaxWait(-1), ratelimit.WithClock(nil), ratelimit.WithWait()).Validate()
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Validate = %v, want ErrInvalidConfiguration", err)
	}
	msg := err.Error()
	rateAt, burstAt, waitAt := strings.Index(msg, "rate 0"), strings.Index(msg, "burst 0"), strings.Index(msg, "WithMaxWait")
	if rateAt < 0 || burstAt < rateAt || waitAt < burstAt || strings.Contains(msg, "WithClock") {
		t.Errorf("Validate = %q, want the rate, the burst and WithMaxWait named in that order, and not WithClock", msg)
	}
	if err := ratelimit.New(1, 0, ratelimit.WithWait()).Validate(); err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.HasSuffix(err.Error(), "burst 0; it must be at least 1") {
		t.Errorf("Validate = %v, want the burst's mistake alone", err)
	}
}

// A nil context is refused in the words every guard refuses it with,
// taking no token.
func TestNilContext(t *testing.T) {
	l := ratelimit.New(1, 1)
	guardtest.RefusesNilContext(t, l, "ratelimit")
	if _, err := l.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Errorf("the nil context took the token: %v", err)
	}
	for _, bad := range []*ratelimit.Limiter{ratelimit.New(0, 1), {}, nil} {
		guardtest.RefusesNilContext(t, bad, "ratelimit")
	}
}

// The last of WithWait and WithMaxWait given decides.
func TestLastWaitOptionDecides(t *testing.T) {
	l, clk := newLimiter(t, 10, 1, ratelimit.WithWait(), ratelimit.WithMaxWait(50*time.Millisecond))
	admitted(t, l, context.Background())
	if admitted(t, l, context.Background()) {
		t.Fatal("a call 100ms from its token was admitted under WithMaxWait(50ms) given last")
	}
	noWait(t, clk)
}
