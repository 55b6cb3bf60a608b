package throttle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// TestProbability checks the book's rejection probability, uncapped
// (WithMaxRejection(1)), at exact counts, and that a draw just below it
// rejects and one at it admits.
func TestProbability(t *testing.T) {
	cases := []struct {
		k        float64
		req, acc int
		want     float64
	}{
		{2, 0, 0, 0},
		{2, 1, 0, 1.0 / 2},
		{2, 10, 0, 10.0 / 11},
		{2, 10, 5, 0}, // half accepted: the book's threshold
		{2, 10, 6, 0}, // more than half: max(0, ...)
		{2, 10, 4, 2.0 / 11},
		{2, 10, 2, 6.0 / 11},
		{2, 3, 1, 1.0 / 4},
		{2, 99, 0, 99.0 / 100},
		{1.5, 10, 4, 4.0 / 11},
		{1, 10, 10, 0},
		{1, 10, 9, 1.0 / 11},
		{3, 10, 3, 1.0 / 11},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("k%v_%d_of_%d", tc.k, tc.acc, tc.req), func(t *testing.T) {
			th, _ := newThrottle(t, WithK(tc.k), WithMaxRejection(1))
			load(t, th, tc.req, tc.acc)
			s := th.Stats()
			if s.Requests != uint64(tc.req) || s.Accepts != uint64(tc.acc) || s.Probability != tc.want {
				t.Fatalf("Stats = %+v, want %d requests, %d accepts, probability %v", s, tc.req, tc.acc, tc.want)
			}
			if tc.want == 0 {
				return
			}
			// The draw decides against the probability of the counts so far.
			th.random, _ = fixed(tc.want)
			if !call(t, th, guard.Outcome{}) {
				t.Fatalf("a draw of exactly %v rejected", tc.want)
			}
			th2, _ := newThrottle(t, WithK(tc.k), WithMaxRejection(1))
			load(t, th2, tc.req, tc.acc)
			th2.random, _ = fixed(tc.want - 1e-12)
			if call(t, th2, guard.Outcome{}) {
				t.Fatalf("a draw just below %v admitted", tc.want)
			}
		})
	}
}

// TestRejectionCountsAsRequest checks that a local rejection is a request,
// as the book counts it, and is reported in Rejected.
func TestRejectionCountsAsRequest(t *testing.T) {
	th, _ := newThrottle(t, WithMaxRejection(1))
	load(t, th, 4, 0) // probability 4/5
	th.random, _ = fixed(0)
	for i := range 6 {
		if call(t, th, guard.Outcome{}) {
			t.Fatalf("call %d admitted under a draw of 0", i)
		}
	}
	s := th.Stats()
	if s.Requests != 10 || s.Accepts != 0 || s.Rejected != 6 || s.Probability != 10.0/11 {
		t.Fatalf("Stats = %+v, want 10 requests, 0 accepts, 6 rejected, probability 10/11", s)
	}
}

// TestRandomOnlyWhenNeeded checks that no draw is made while the
// probability is 0.
func TestRandomOnlyWhenNeeded(t *testing.T) {
	r, draws := fixed(0.5)
	th, _ := newThrottle(t, WithRandom(r))
	load(t, th, 100, 100)
	if draws.Load() != 0 {
		t.Fatalf("%d draws for calls that could not be rejected", draws.Load())
	}
	call(t, th, guard.Outcome{Err: errOverloaded})
	if draws.Load() != 0 {
		t.Fatal("a draw at probability 0")
	}
}

// TestAccepts checks what each kind of outcome counts.
func TestAccepts(t *testing.T) {
	onlyNotFound := WithAccepted(func(err error) bool { return errors.Is(err, errNotFound) })
	refusal := refusalOutcome(t)
	cases := []struct {
		name     string
		opts     []Option
		o        guard.Outcome
		req, acc uint64
	}{
		{"success", nil, guard.Outcome{}, 1, 1},
		{"error", nil, guard.Outcome{Err: errOverloaded}, 1, 0},
		{"error_not_accepted_by_default", nil, guard.Outcome{Err: errNotFound}, 1, 0},
		{"classified_accepted", []Option{onlyNotFound}, guard.Outcome{Err: fmt.Errorf("get: %w", errNotFound)}, 1, 1},
		{"classified_not_accepted", []Option{onlyNotFound}, guard.Outcome{Err: errOverloaded}, 1, 0},
		{"abandoned_error", nil, guard.Outcome{Err: errOverloaded, Abandoned: true}, 0, 0},
		{"abandoned_success", nil, guard.Outcome{Abandoned: true}, 0, 0},
		{"inner_refusal", nil, refusal, 0, 0},
		{"classifier_not_asked_for_refusal", []Option{WithAccepted(func(error) bool { return true })}, refusal, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			th, _ := newThrottle(t, tc.opts...)
			call(t, th, tc.o)
			if s := th.Stats(); s.Requests != tc.req || s.Accepts != tc.acc {
				t.Fatalf("Stats = %+v, want %d requests, %d accepts", s, tc.req, tc.acc)
			}
		})
	}
}

// refusalOutcome returns the Outcome a guard sees when a guard inside it
// refused the call, as guard.Run (and so a policy) makes it.
func refusalOutcome(t *testing.T) guard.Outcome {
	t.Helper()
	var got guard.Outcome
	spy := &spyGuard{record: func(o guard.Outcome) { got = o }}
	inner, _ := newThrottle(t)
	load(t, inner, 1, 0)
	inner.random, _ = fixed(0)
	c := guard.Call{Attempt: 1}
	_ = guard.Run(t.Context(), spy, c, func(ctx context.Context) error {
		return guard.Run(ctx, inner, c, func(context.Context) error { return nil })
	})
	if !guard.IsRefusal(got.Err) {
		t.Fatalf("the spy recorded %v, want a refusal", got.Err)
	}
	return got
}

// spyGuard admits everything and hands each Outcome to record.
type spyGuard struct{ record func(guard.Outcome) }

func (s *spyGuard) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, nil
}

func (s *spyGuard) Record(_ guard.Permit, o guard.Outcome) { s.record(o) }

// TestAbandonedAcrossSlots checks that an abandoned call takes back its
// request from the slot it was counted in, even after the clock moved on,
// and not from a later one.
func TestAbandonedAcrossSlots(t *testing.T) {
	th, clk := newThrottle(t) // 12 s slots
	p, err := th.Allow(t.Context(), guard.Call{})
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(30 * time.Second)
	load(t, th, 3, 0)
	th.Record(p, guard.Outcome{Err: errOverloaded, Abandoned: true})
	if s := th.Stats(); s.Requests != 3 {
		t.Fatalf("Stats = %+v, want the 3 later requests", s)
	}
	// Once its slot has left the window, there is nothing to take back.
	p, _ = th.Allow(t.Context(), guard.Call{})
	clk.Add(2 * time.Minute)
	load(t, th, 2, 0)
	th.Record(p, guard.Outcome{Abandoned: true})
	if s := th.Stats(); s.Requests != 2 {
		t.Fatalf("Stats = %+v, want the 2 requests of the new window", s)
	}
}

// TestAcceptCountedWithRequest checks that an accept is counted in the
// slot of its request, so that a slow call's request and accept leave the
// window together.
func TestAcceptCountedWithRequest(t *testing.T) {
	th, clk := newThrottle(t) // 2 min window, 12 s slots
	p, err := th.Allow(t.Context(), guard.Call{})
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(50 * time.Second) // a slow call
	th.Record(p, guard.Outcome{})
	if s := th.Stats(); s.Requests != 1 || s.Accepts != 1 {
		t.Fatalf("Stats = %+v, want 1 request, 1 accept", s)
	}
	clk.Add(70 * time.Second) // 2 min after the request
	if s := th.Stats(); s.Requests != 0 || s.Accepts != 0 {
		t.Fatalf("Stats = %+v, want both gone", s)
	}
}

// TestClassifierPanics checks that a classifier that panics leaves the
// call counted as an unaccepted request, and the panic goes on.
func TestClassifierPanics(t *testing.T) {
	th, _ := newThrottle(t, WithAccepted(func(error) bool { panic("classifier") }))
	func() {
		defer func() {
			if r := recover(); r != "classifier" {
				t.Fatalf("recovered %v, want the classifier's panic", r)
			}
		}()
		call(t, th, guard.Outcome{Err: errNotFound})
	}()
	if s := th.Stats(); s.Requests != 1 || s.Accepts != 0 {
		t.Fatalf("Stats = %+v, want 1 request, 0 accepts", s)
	}
}

// TestRandomPanics checks that a random source that panics leaves the
// call uncounted.
func TestRandomPanics(t *testing.T) {
	th, _ := newThrottle(t)
	load(t, th, 2, 0)
	th.random = func() float64 { panic("random") }
	func() {
		defer func() {
			if r := recover(); r != "random" {
				t.Fatalf("recovered %v, want the source's panic", r)
			}
		}()
		_, _ = th.Allow(t.Context(), guard.Call{})
	}()
	if s := th.Stats(); s.Requests != 2 || s.Rejected != 0 {
		t.Fatalf("Stats = %+v, want the 2 requests before", s)
	}
}

// TestDefaultRandom checks that the default source rejects about as often
// as the probability says: 10 requests, none accepted, give 10/11 for the
// first draw, and the probability only rises.
func TestDefaultRandom(t *testing.T) {
	th := New(WithClock(newMock()), WithMaxRejection(1)) // the book's rule, uncapped
	for range 10 {
		p, err := th.Allow(t.Context(), guard.Call{})
		if err == nil {
			th.Record(p, guard.Outcome{Err: errOverloaded})
		}
	}
	rejected := 0
	const n = 2000
	for range n {
		if _, err := th.Allow(t.Context(), guard.Call{}); err != nil {
			rejected++
		}
	}
	// Every draw is at a probability of at least 10/11 (0.909).
	if rejected < n*85/100 {
		t.Fatalf("%d of %d rejected, want at least 85%%", rejected, n)
	}
}

// TestWindowExpiry checks that the counts, and with them the rejections,
// leave the window on the mock clock: a backend that rejected everything
// is tried again at full rate a window later.
func TestWindowExpiry(t *testing.T) {
	th, clk := newThrottle(t) // 2 min window, 12 s slots
	load(t, th, 10, 0)
	clk.Add(36 * time.Second)
	load(t, th, 5, 5)
	start := time.Unix(0, 0)
	steps := []struct {
		at       time.Duration // since the first 10 calls
		req, acc uint64
		p        float64
	}{
		{36 * time.Second, 15, 5, 5.0 / 16},
		{2*time.Minute - 1, 15, 5, 5.0 / 16},
		{2 * time.Minute, 5, 5, 0}, // the first 10 are gone
		{2*time.Minute + 36*time.Second - 1, 5, 5, 0},
		{2*time.Minute + 36*time.Second, 0, 0, 0},
	}
	for _, s := range steps {
		clk.Set(start.Add(s.at))
		got := th.Stats()
		if got.Requests != s.req || got.Accepts != s.acc || got.Probability != s.p {
			t.Fatalf("at %v: Stats = %+v, want %d requests, %d accepts, probability %v", s.at, got, s.req, s.acc, s.p)
		}
	}
}

// TestRecovery runs an outage and a recovery: the rejection probability
// rises while the backend rejects, and falls back to 0 as it accepts again.
func TestRecovery(t *testing.T) {
	th, clk := newThrottle(t, WithWindow(10*time.Second), WithRandom(func() float64 { return 0.5 }), WithMaxRejection(1))
	load(t, th, 20, 20)
	admitted := 0
	for range 100 { // the backend is down: every admitted call fails
		if call(t, th, guard.Outcome{Err: errOverloaded}) {
			admitted++
		}
	}
	// 20 accepts allow 40 requests at probability 0; the 41st call sees
	// (40 − 40)/41 = 0, the 42nd 1/42, ... and a draw of 0.5 rejects from
	// a probability above 0.5: (r − 40)/(r + 1) > 0.5 from r = 82.
	if admitted != 82-20 {
		t.Fatalf("%d calls admitted during the outage, want %d", admitted, 82-20)
	}
	if s := th.Stats(); s.Rejected != 100-uint64(admitted) {
		t.Fatalf("Stats = %+v, want %d rejected", s, 100-admitted)
	}
	clk.Add(10 * time.Second) // the outage leaves the window
	if s := th.Stats(); s.Probability != 0 || s.Requests != 0 {
		t.Fatalf("a window later: Stats = %+v, want an empty window", s)
	}
	for i := range 50 {
		if !call(t, th, guard.Outcome{}) {
			t.Fatalf("call %d rejected after recovery", i)
		}
	}
}

// TestConcurrent checks exact counts under concurrent calls.
func TestConcurrent(t *testing.T) {
	const goroutines, each = 16, 200
	th, _ := newThrottle(t)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				p, err := th.Allow(context.Background(), guard.Call{Attempt: 1})
				if err != nil {
					t.Error(err)
					return
				}
				var o guard.Outcome
				switch {
				case g%2 == 1:
					o.Err = errOverloaded
				case i%10 == 0:
					o.Abandoned = true
				}
				th.Record(p, o)
			}
		})
	}
	wg.Wait()
	half := uint64(goroutines / 2 * each)
	abandoned := uint64(goroutines / 2 * each / 10)
	if s := th.Stats(); s.Requests != 2*half-abandoned || s.Accepts != half-abandoned || s.Rejected != 0 {
		t.Fatalf("Stats = %+v, want %d requests, %d accepts", s, 2*half-abandoned, half-abandoned)
	}
}

// TestConcurrentRejections checks that concurrent rejections are all
// counted, as requests and as rejections.
func TestConcurrentRejections(t *testing.T) {
	const goroutines, each = 16, 100
	th, _ := newThrottle(t)
	load(t, th, 1, 0) // probability 1/2: a draw of 0 rejects from here on
	th.random = func() float64 { return 0 }
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				_, _ = th.Allow(context.Background(), guard.Call{})
			}
		})
	}
	wg.Wait()
	if s := th.Stats(); s.Requests != 1+goroutines*each || s.Rejected != goroutines*each {
		t.Fatalf("Stats = %+v, want %d requests, %d rejected", s, 1+goroutines*each, goroutines*each)
	}
}

// TestSuccessPathAllocs checks that an admitted success allocates nothing,
// and neither does a draw at a probability above 0.
func TestSuccessPathAllocs(t *testing.T) {
	ctx := context.Background()
	th := New()
	if allocs := guardtest.AdmittedAllocs(t, 1000, th, ctx); allocs != 0 {
		t.Errorf("success: %v allocs, want 0", allocs)
	}
	failing := New()
	allocs := testing.AllocsPerRun(1000, func() {
		if p, err := failing.Allow(ctx, guard.Call{Attempt: 1}); err == nil {
			failing.Record(p, guard.Outcome{Err: errOverloaded})
		}
	})
	if allocs != 0 {
		t.Errorf("failures and rejections: %v allocs, want 0", allocs)
	}
}

func BenchmarkSuccess(b *testing.B) {
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		th := New()
		b.ReportAllocs()
		for b.Loop() {
			p, _ := th.Allow(ctx, guard.Call{Attempt: 1})
			th.Record(p, guard.Outcome{})
		}
	})
	b.Run("parallel", func(b *testing.B) {
		th := New()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p, _ := th.Allow(ctx, guard.Call{Attempt: 1})
				th.Record(p, guard.Outcome{})
			}
		})
	})
}

// BenchmarkOverloaded measures calls to a backend that fails them all: a
// draw and a rejection for most.
func BenchmarkOverloaded(b *testing.B) {
	ctx := context.Background()
	th := New()
	b.ReportAllocs()
	for b.Loop() {
		if p, err := th.Allow(ctx, guard.Call{Attempt: 1}); err == nil {
			th.Record(p, guard.Outcome{Err: errOverloaded})
		}
	}
}

// Allow refuses a nil context, as every guard of the module does, with
// the same words: an error matching ErrInvalidConfiguration, and the call
// not counted as a request.
func TestAllowNilContext(t *testing.T) {
	th, _ := newThrottle(t)
	overloaded, _ := newThrottle(t)
	load(t, overloaded, 10, 0) // it would reject with a probability above 0
	guardtest.RefusesNilContextUncounted(t, "throttle", (*Throttle).Stats, []guardtest.Case[*Throttle]{
		{Name: "fresh", Guard: th},
		{Name: "overloaded", Guard: overloaded},
		{Name: "invalid", Guard: New(WithK(0))},
		{Name: "zero", Guard: &Throttle{}},
		{Name: "nil", Guard: nil},
	})
}

// TestRun checks Run on its own.
func TestRun(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Run(t.Context(), func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 1 {
			t.Fatalf("Stats = %+v", s)
		}
	})
	t.Run("failure", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Run(t.Context(), func(context.Context) error { return errOverloaded }); err != errOverloaded {
			t.Fatalf("err = %v", err)
		}
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v", s)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		th, _ := newThrottle(t, WithRandom(func() float64 { return 0 }))
		load(t, th, 1, 0)
		ran := false
		err := th.Run(t.Context(), func(context.Context) error { ran = true; return nil })
		if !errors.Is(err, ErrThrottled) || !errors.Is(err, backoff.ErrRefused) || ran {
			t.Fatalf("err = %v, ran = %v; want a refusal matching ErrThrottled, not run", err, ran)
		}
	})
	t.Run("abandoned", func(t *testing.T) {
		th, _ := newThrottle(t)
		ctx, cancel := context.WithCancel(t.Context())
		_ = th.Run(ctx, func(context.Context) error { cancel(); return errOverloaded })
		if s := th.Stats(); s.Requests != 0 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v, want the abandoned call taken back", s)
		}
	})
	t.Run("panic", func(t *testing.T) {
		th, _ := newThrottle(t)
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("recovered %v, want fn's panic", r)
				}
			}()
			_ = th.Run(t.Context(), func(context.Context) error { panic("boom") })
		}()
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v, want a request not accepted", s)
		}
	})
}

// TestWindowOffset checks that an offset makes the counts leave the
// window offset mod a slot sooner: 5 s sooner with 12 s slots and an
// offset of 17 s.
func TestWindowOffset(t *testing.T) {
	th, clk := newThrottle(t, WithWindowOffset(17*time.Second))
	load(t, th, 10, 0)
	start := time.Unix(0, 0)
	for _, s := range []struct {
		at  time.Duration
		req uint64
	}{
		{2*time.Minute - 5*time.Second - 1, 10},
		{2*time.Minute - 5*time.Second, 0},
	} {
		clk.Set(start.Add(s.at))
		if got := th.Stats(); got.Requests != s.req {
			t.Fatalf("at %v: Stats = %+v, want %d requests", s.at, got, s.req)
		}
	}
}
