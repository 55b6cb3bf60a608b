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
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/ratelimit"
	"golang.org/x/time/rate"
)

// Every setting New cannot use makes a Limiter that refuses every call
// with ErrInvalidConfiguration naming the setting; none admits anything
// or panics.
func TestInvalidConfiguration(t *testing.T) {
	var nilClock clock.Clock
	cases := []struct {
		name  string
		l     *ratelimit.Limiter
		names string
	}{
		{"zero rate", ratelimit.New(0, 1), "rate 0"},
		{"negative rate", ratelimit.New(-1, 1), "rate -1"},
		{"NaN rate", ratelimit.New(rate.Limit(math.NaN()), 1), "rate NaN"},
		{"rate.Inf", ratelimit.New(rate.Inf, 1), "infinite rate"},
		{"-Inf rate", ratelimit.New(rate.Limit(math.Inf(-1)), 1), "infinite rate"},
		{"zero burst", ratelimit.New(1, 0), "burst 0"},
		{"negative burst", ratelimit.New(1, -3), "burst -3"},
		{"zero max wait", ratelimit.New(1, 1, ratelimit.WithMaxWait(0)), "WithMaxWait was given 0s"},
		{"negative max wait", ratelimit.New(1, 1, ratelimit.WithMaxWait(-time.Second)), "WithMaxWait was given -1s"},
		{"nil clock", ratelimit.New(1, 1, ratelimit.WithClock(nilClock)), "WithClock"},
		{"nil option", ratelimit.New(1, 1, nil), "nil Option"},
		{"zero Limiter", &ratelimit.Limiter{}, "zero"},
		{"nil Limiter", nil, "nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.l.Validate()
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.names) {
				t.Fatalf("Validate = %v, want ErrInvalidConfiguration naming %q", err, c.names)
			}
			if _, aerr := c.l.Allow(context.Background(), guard.Call{Attempt: 1}); aerr != err {
				t.Errorf("Allow = %v, want the configuration error", aerr)
			}
			ran := false
			rerr := c.l.Run(context.Background(), func(context.Context) error { ran = true; return nil })
			if ran || !errors.Is(rerr, backoff.ErrInvalidConfiguration) {
				t.Errorf("Run ran fn %v, returned %v; want no call and ErrInvalidConfiguration", ran, rerr)
			}
			perr := policy.New(policy.Guard(c.l)).DoErr(context.Background(), func(context.Context) error { ran = true; return nil })
			if ran || !errors.Is(perr, backoff.ErrInvalidConfiguration) {
				t.Errorf("a Policy ran fn %v, returned %v; want no call and ErrInvalidConfiguration", ran, perr)
			}
		})
	}
}

// The first bad setting is the one reported; a good option after it does
// not clear it.
func TestFirstBadSettingIsReported(t *testing.T) {
	err := ratelimit.New(0, 0, ratelimit.WithMaxWait(-1), ratelimit.WithWait()).Validate()
	if err == nil || !strings.Contains(err.Error(), "rate 0") {
		t.Errorf("Validate = %v, want the rate named", err)
	}
}

// A nil context is refused as an invalid configuration, taking no token.
func TestNilContext(t *testing.T) {
	l := ratelimit.New(1, 1)
	//lint:ignore SA1012 a nil context is what is tested
	if _, err := l.Allow(nil, guard.Call{Attempt: 1}); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Allow(nil) = %v, want ErrInvalidConfiguration", err)
	}
	if _, err := l.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Errorf("the nil context took the token: %v", err)
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
