package hop_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/hop"
)

// What a request's headers tell of its caller; hostile or malformed values
// tell nothing.
func TestReadHeader(t *testing.T) {
	cases := []struct {
		name string
		h    http.Header
		want hop.Caller
	}{
		{"none", http.Header{}, hop.Caller{Attempt: 1}},
		{"first", http.Header{hop.AttemptHeader: {"1"}}, hop.Caller{Attempt: 1}},
		{"retry_with_deadline", http.Header{hop.AttemptHeader: {"3"}, hop.TimeoutHeader: {"1500"}}, hop.Caller{Attempt: 3, Timeout: 1500 * time.Millisecond, HasTimeout: true}},
		{"deadline_passed", http.Header{hop.TimeoutHeader: {"0"}}, hop.Caller{Attempt: 1, HasTimeout: true}},
		{"zero_attempt", http.Header{hop.AttemptHeader: {"0"}}, hop.Caller{Attempt: 1}},
		{"negative", http.Header{hop.AttemptHeader: {"-2"}, hop.TimeoutHeader: {"-5"}}, hop.Caller{Attempt: 1}},
		{"garbage", http.Header{hop.AttemptHeader: {"two"}, hop.TimeoutHeader: {"1e3"}}, hop.Caller{Attempt: 1}},
		{"overflow", http.Header{hop.AttemptHeader: {"99999999999999999999"}, hop.TimeoutHeader: {"9223372036854775807"}}, hop.Caller{Attempt: 1}},
		{"twice", http.Header{hop.AttemptHeader: {"2", "3"}, hop.TimeoutHeader: {"1", "2"}}, hop.Caller{Attempt: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hop.ReadHeader(c.h); got != c.want {
				t.Errorf("ReadHeader(%v) = %+v, want %+v", c.h, got, c.want)
			}
		})
	}
	h := http.Header{hop.AttemptHeader: {"2"}, hop.TimeoutHeader: {"100"}}
	if n := testing.AllocsPerRun(100, func() { _ = hop.ReadHeader(h) }); n != 0 {
		t.Errorf("ReadHeader allocates %v times", n)
	}
}

// WriteHeader writes what ReadHeader reads, whole milliseconds rounded
// down, never negative, and removes a stale deadline.
func TestWriteHeader(t *testing.T) {
	h := http.Header{hop.TimeoutHeader: {"stale"}}
	hop.WriteHeader(h, hop.Caller{Attempt: 2, Timeout: 1999 * time.Microsecond, HasTimeout: true})
	if h.Get(hop.AttemptHeader) != "2" || h.Get(hop.TimeoutHeader) != "1" {
		t.Errorf("headers %v; want attempt 2, timeout 1 ms", h)
	}
	hop.WriteHeader(h, hop.Caller{Attempt: 3, Timeout: -time.Second, HasTimeout: true})
	if h.Get(hop.TimeoutHeader) != "0" {
		t.Errorf("a passed deadline is sent as %q, want 0", h.Get(hop.TimeoutHeader))
	}
	hop.WriteHeader(h, hop.Caller{Attempt: 4, Timeout: 1000 * time.Hour, HasTimeout: true})
	if got := hop.ReadHeader(h); !got.HasTimeout || got.Timeout != (1<<31-1)*time.Millisecond {
		t.Errorf("a long deadline reads back as %+v; want the largest value", got)
	}
	hop.WriteHeader(h, hop.Caller{Attempt: 5})
	if _, ok := h[hop.TimeoutHeader]; ok || h.Get(hop.AttemptHeader) != "5" {
		t.Errorf("headers %v; want no timeout without a deadline", h)
	}
}

// A response says "do not retry" with the header, whatever its value, or
// with Envoy's.
func TestStopped(t *testing.T) {
	for _, c := range []struct {
		h      http.Header
		reason string
		ok     bool
	}{
		{http.Header{}, "", false},
		{http.Header{hop.StopHeader: {"exhausted"}}, "exhausted", true},
		{http.Header{hop.StopHeader: {""}}, "", true},
		{http.Header{hop.EnvoyOverloadedHeader: {"true"}}, hop.ReasonOverloaded, true},
	} {
		if r, ok := hop.Stopped(c.h); r != c.reason || ok != c.ok {
			t.Errorf("Stopped(%v) = %q, %v", c.h, r, ok)
		}
	}
	if !errors.Is(hop.ErrDoNotRetry, backoff.ErrRetriesCanceled) {
		t.Error("ErrDoNotRetry does not match backoff.ErrRetriesCanceled")
	}
}

// A Tier keeps the first reason given, from any goroutine; a context
// without one is left alone.
func TestTier(t *testing.T) {
	hop.GiveUp(context.Background(), hop.ReasonExhausted) // nothing to mark
	var none context.Context
	hop.GiveUp(none, hop.ReasonExhausted) // a nil context is ignored
	var tier hop.Tier
	if _, ok := tier.Reason(); ok {
		t.Fatal("a new Tier gave up")
	}
	ctx := hop.Track(context.Background(), &tier)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { hop.GiveUp(ctx, hop.ReasonOverloaded) })
	}
	wg.Wait()
	hop.GiveUp(ctx, hop.ReasonExhausted)
	if r, ok := tier.Reason(); !ok || r != hop.ReasonOverloaded {
		t.Errorf("Reason = %q, %v; want the first reason given", r, ok)
	}
	tier.Reset()
	if _, ok := tier.Reason(); ok {
		t.Error("Reset kept the reason")
	}
	if _, ok := (*hop.Tier)(nil).Reason(); ok {
		t.Error("a nil Tier gave up")
	}
	if hop.Track(ctx, nil) != ctx {
		t.Error("Track(nil) made a new context")
	}
	bg := context.Background()
	if n := testing.AllocsPerRun(100, func() { hop.GiveUp(bg, hop.ReasonExhausted) }); n != 0 {
		t.Errorf("GiveUp without a Tier allocates %v times", n)
	}
}
