package grpcbackoff_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
)

// A6BackOff's waits are the nominal ones times a factor in [0.8, 1.2]:
// the bounds at the extreme draws, the nominal wait capped at max before
// the spread, as gRFC A6 has it.
func TestA6BackOff(t *testing.T) {
	for _, c := range []struct {
		draw   float64
		factor float64
	}{{0, 0.8}, {0.5, 1}, {1, 1.2}} {
		b, err := grpcbackoff.A6BackOff(100*time.Millisecond, time.Second, 2)
		if err != nil {
			t.Fatal(err)
		}
		b.Random = func() float64 { return c.draw }
		for i, nominal := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
			want := time.Duration(float64(nominal*time.Millisecond) * c.factor)
			if got := b.NextBackOff(); math.Abs(float64(got-want)) > 1 {
				t.Errorf("draw %v, wait %d: %v, want %v", c.draw, i+1, got, want)
			}
		}
	}
	b, _ := grpcbackoff.A6BackOff(time.Second, 10*time.Second, 1.6)
	for range 1000 {
		if d := b.NextBackOff(); d < 800*time.Millisecond || d > 12*time.Second {
			t.Fatalf("a wait of %v is outside [0.8 × 1 s, 1.2 × 10 s]", d)
		}
	}
	if _, ok := backoff.BackOff(b).(interface{ Clone() backoff.BackOff }); !ok {
		t.Error("A6BackOff's BackOff has no Clone: a shared Policy could not use it")
	}
}

// A6BackOff refuses settings gRPC's service config refuses, naming them.
func TestA6BackOffInvalid(t *testing.T) {
	for _, c := range []struct {
		initial, max time.Duration
		mult         float64
		want         string
	}{
		{0, time.Second, 2, "initial backoff 0s"},
		{-time.Second, time.Second, 2, "initial backoff -1s"},
		{time.Second, time.Millisecond, 2, "max backoff 1ms is below the initial backoff 1s"},
		{time.Second, time.Second, 0.5, "backoff multiplier 0.5"},
		{time.Second, time.Second, math.NaN(), "backoff multiplier NaN"},
		{time.Second, time.Second, math.Inf(1), "backoff multiplier +Inf"},
	} {
		b, err := grpcbackoff.A6BackOff(c.initial, c.max, c.mult)
		if b != nil || !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "grpcbackoff.A6BackOff: "+c.want) {
			t.Errorf("A6BackOff(%v, %v, %v) = %v, %v; want ErrInvalidConfiguration naming %q", c.initial, c.max, c.mult, b, err, c.want)
		}
	}
}
