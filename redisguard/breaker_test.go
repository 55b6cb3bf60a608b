package redisguard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// sharedBreakers returns n instances of one shared breaker, each with a client of
// its own, on v's time.
func sharedBreakers(t *testing.T, v *virtual, n int, opts ...Option) []*Breaker {
	t.Helper()
	addr := needRedis(t)
	nm := name(t)
	out := make([]*Breaker, n)
	for i := range out {
		out[i] = NewBreaker(newClient(t, addr), nm, append([]Option{generous, v.option()}, opts...)...)
		if err := out[i].Validate(); err != nil {
			t.Fatal(err)
		}
		warm(t, out[i])
	}
	return out
}

// warm makes b's first call, a success, so that b has a fresh view of the
// shared state: its next failures are sent at once. (A failure recorded
// after an Allow that made the call's round trip is owed until b's next
// round trip instead; TestBreakerRoundTrips covers that.)
func warm(t *testing.T, b *Breaker) {
	t.Helper()
	if err := call(b, nil); err != nil {
		t.Fatalf("warming up: %v", err)
	}
}

// call runs one call through b that ends with err, and returns Allow's
// error.
func call(b *Breaker, err error) error {
	p, aerr := b.Allow(bg, first)
	if aerr != nil {
		return aerr
	}
	b.Record(p, guard.Outcome{Err: err})
	return nil
}

// isOpen reports whether err is a refusal of state s.
func isOpen(err error, s breaker.State) bool {
	var oe *breaker.OpenError
	return errors.As(err, &oe) && oe.State == s && errors.Is(err, breaker.ErrCircuitOpen)
}

// TestBreakerTripsAcrossInstances: failures of two instances add up to
// the fleet's count in a row, which a success resets; the instance that
// saw the trip refuses at once, the other once its view is stale.
func TestBreakerTripsAcrossInstances(t *testing.T) {
	v := newVirtual()
	f := sharedBreakers(t, v, 2, WithBreaker(breaker.WithConsecutiveFailures(5)))
	a, b := f[0], f[1]
	for _, g := range []*Breaker{a, a, b, b} {
		if err := call(g, errDown); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.Stats().ConsecutiveFailures; got != 4 {
		t.Fatalf("b sees %d failures in a row, want 4", got)
	}
	if err := call(b, nil); err != nil { // b sees failures: its success resets the fleet's count
		t.Fatal(err)
	}
	for i := range 5 {
		if err := call([]*Breaker{a, b}[i%2], errDown); err != nil {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	if got := a.State(); got != breaker.Open {
		t.Fatalf("a, whose record tripped it, sees %v, want open", got)
	}
	if err := call(a, nil); !isOpen(err, breaker.Open) {
		t.Fatalf("a: Allow = %v, want an open refusal", err)
	}
	if err := call(b, nil); err != nil {
		t.Fatalf("b within the staleness: Allow = %v, want admitted on its closed view", err)
	}
	v.advance(DefaultStaleness)
	if err := call(b, nil); !isOpen(err, breaker.Open) {
		t.Fatalf("b past the staleness: Allow = %v, want an open refusal", err)
	}
	for _, g := range f {
		mustShared(t, g)
	}
}

// TestBreakerHalfOpenProbesExact: when the open duration has passed, the
// fleet's concurrent callers get exactly WithHalfOpen's probes, whatever
// the trip rule.
func TestBreakerHalfOpenProbesExact(t *testing.T) {
	for rule, trip := range map[string]breaker.Option{
		"in_a_row":       breaker.WithConsecutiveFailures(1),
		"rate_of_calls":  breaker.WithFailureRate(0.5, 1, 10),
		"rate_over_time": breaker.WithFailureRateOver(0.5, 1, time.Minute),
	} {
		t.Run(rule, func(t *testing.T) {
			v := newVirtual()
			f := sharedBreakers(t, v, 3, WithBreaker(trip), WithBreaker(breaker.WithOpenDuration(time.Minute)), WithBreaker(breaker.WithHalfOpen(2, 2)))
			if err := call(f[0], errDown); err != nil {
				t.Fatal(err)
			}
			if got := f[0].State(); got != breaker.Open {
				t.Fatalf("after a failure: %v, want open", got)
			}
			v.advance(time.Minute)
			var wg sync.WaitGroup
			var probes atomic.Int64
			for i := range 60 {
				wg.Add(1)
				go func(b *Breaker) {
					defer wg.Done()
					_, err := b.Allow(bg, first)
					switch {
					case err == nil:
						probes.Add(1)
					case !isOpen(err, breaker.HalfOpen):
						t.Errorf("Allow = %v, want admitted or a half-open refusal", err)
					}
				}(f[i%3])
			}
			wg.Wait()
			if got := probes.Load(); got != 2 {
				t.Errorf("%d probes admitted, want exactly 2", got)
			}
		})
	}
}

// TestBreakerCycle walks the shared state through its cycle, and checks
// what the hook reports.
func TestBreakerCycle(t *testing.T) {
	v := newVirtual()
	var mu sync.Mutex
	var changes []string
	hook := WithBreaker(breaker.WithStateChange(func(from, to breaker.State) {
		mu.Lock()
		defer mu.Unlock()
		changes = append(changes, from.String()+">"+to.String())
	}))
	f := sharedBreakers(t, v, 2, WithBreaker(breaker.WithConsecutiveFailures(2)), WithBreaker(breaker.WithOpenDuration(10*time.Second)), WithBreaker(breaker.WithHalfOpen(2, 2)), hook)
	a, b := f[0], f[1]
	call(a, errDown)
	call(b, errDown) // trips
	v.advance(10 * time.Second)

	pa, err := a.Allow(bg, first) // a probe; half-open
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Allow(bg, first) // the other probe
	if err != nil {
		t.Fatal(err)
	}
	if err := call(a, nil); !isOpen(err, breaker.HalfOpen) {
		t.Fatalf("a third caller: %v, want a half-open refusal", err)
	}
	b.Record(pb, guard.Outcome{Abandoned: true}) // gives its place back
	pb, err = b.Allow(bg, first)
	if err != nil {
		t.Fatalf("after an abandoned probe: %v, want its place", err)
	}
	a.Record(pa, guard.Outcome{})
	b.Record(pb, guard.Outcome{Err: errDown}) // reopens
	if got := b.State(); got != breaker.Open {
		t.Fatalf("after a failed probe: %v, want open", got)
	}
	v.advance(10 * time.Second)
	for _, g := range f {
		p, err := g.Allow(bg, first)
		if err != nil {
			t.Fatal(err)
		}
		g.Record(p, guard.Outcome{})
	}
	if a.State() != breaker.Closed && b.State() != breaker.Closed {
		t.Fatalf("two probe successes: %v, %v; want closed", a.State(), b.State())
	}
	mu.Lock()
	got := changes
	mu.Unlock()
	want := []string{"closed>open", "open>half-open", "half-open>open", "open>half-open", "half-open>closed"}
	if len(got) != len(want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("changes %v, want %v", got, want)
		}
	}
	if n := a.Stats().Transitions + b.Stats().Transitions; n != uint64(len(want)) {
		t.Errorf("Transitions add up to %d, want %d", n, len(want))
	}
}

// TestBreakerProbeTimeout: a probe whose outcome never comes (its
// process died) gives its place to another after the probe timeout, and
// its late record counts for nothing.
func TestBreakerProbeTimeout(t *testing.T) {
	v := newVirtual()
	f := sharedBreakers(t, v, 2, WithBreaker(breaker.WithConsecutiveFailures(1)), WithBreaker(breaker.WithOpenDuration(time.Second)), WithProbeTimeout(5*time.Second))
	call(f[0], errDown)
	v.advance(time.Second)
	lost, err := f[0].Allow(bg, first)
	if err != nil {
		t.Fatal(err)
	}
	if err := call(f[1], nil); !isOpen(err, breaker.HalfOpen) {
		t.Fatalf("while the probe is out: %v, want a half-open refusal", err)
	}
	v.advance(5 * time.Second)
	p, err := f[1].Allow(bg, first)
	if err != nil {
		t.Fatalf("past the probe timeout: %v, want a new probe", err)
	}
	f[0].Record(lost, guard.Outcome{Err: errDown})
	if got := f[0].Stats().Ignored; got != 1 {
		t.Errorf("the lost probe's record: Ignored = %d, want 1", got)
	}
	f[1].Record(p, guard.Outcome{})
	if got := f[1].State(); got != breaker.Closed {
		t.Errorf("after the new probe's success: %v, want closed", got)
	}
}

// TestBreakerRoundTrips counts what each kind of call costs, and that an
// outcome owed by a call whose Allow paid reaches the server with the
// next round trip.
func TestBreakerRoundTrips(t *testing.T) {
	v := newVirtual()
	b := NewBreaker(newClient(t, needRedis(t)), name(t), generous, v.option(), WithBreaker(breaker.WithConsecutiveFailures(3)))
	key := "backoff:{" + name(t) + "}:breaker"
	a := admin(t, needRedis(t))
	fails := func() string { return a.HGet(bg, key, "f").Val() }
	steps := []struct {
		what string
		err  error
		want uint64
	}{
		{"first call: Allow asks, the success is free", nil, 1},
		{"fresh view: success", nil, 0},
		{"fresh view: failure, its Record sends it", errDown, 1},
		{"fresh view, a failure counted: success resets", nil, 1},
	}
	for _, s := range steps {
		wantRoundTrips(t, b, s.what, s.want, func() error { return call(b, s.err) })
	}
	v.advance(DefaultStaleness)
	before := roundTrips(b)
	call(b, errDown) // Allow refreshes; the failure is owed
	if got := roundTrips(b) - before; got != 1 {
		t.Errorf("stale view, a failure: %d round trips, want 1", got)
	}
	if got := fails(); got != "0" {
		t.Errorf("the owed failure reached the server early: f = %s", got)
	}
	call(b, nil) // its Allow sends the failure; the success then resets, owed
	if got := roundTrips(b) - before; got != 2 {
		t.Errorf("after the next call: %d round trips in all, want 2", got)
	}
	if got := fails(); got != "1" {
		t.Errorf("after the next Allow: f = %s, want 1", got)
	}
	mustShared(t, b)
}

// TestBreakerTripIsPrompt: an instance whose every call pays its round
// trip in Allow (here its first calls, in a row) owes its failures, but
// sends the one that trips the breaker at once: the other instance sees
// the breaker open after the third failure, as a local breaker would be.
func TestBreakerTripIsPrompt(t *testing.T) {
	addr := needRedis(t)
	nm := name(t)
	v := newVirtual()
	opts := []Option{generous, v.option(), WithBreaker(breaker.WithConsecutiveFailures(3)), WithStaleness(0)}
	a := NewBreaker(newClient(t, addr), nm, opts...)
	b := NewBreaker(newClient(t, addr), nm, opts...)
	for i := range 3 {
		want := uint64(1)
		if i == 2 {
			want = 2 // the trip goes at once
		}
		wantRoundTrips(t, a, fmt.Sprintf("failure %d", i), want, func() error { return call(a, errDown) })
	}
	if err := call(b, nil); !isOpen(err, breaker.Open) {
		t.Fatalf("the other instance: %v, want the breaker open", err)
	}
}

// TestBreakerClockSkew: instances whose clocks disagree by an hour see
// the same open duration, the server's.
func TestBreakerClockSkew(t *testing.T) {
	early, late := newVirtual(), newVirtual()
	late.mock.Add(time.Hour)
	addr := needRedis(t)
	nm := name(t)
	opts := []Option{generous, WithBreaker(breaker.WithConsecutiveFailures(1)), WithBreaker(breaker.WithOpenDuration(time.Minute))}
	a := NewBreaker(newClient(t, addr), nm, append(opts, early.option())...)
	b := NewBreaker(newClient(t, addr), nm, append(opts, late.option())...)
	warm(t, a)
	call(a, errDown)
	var oe *breaker.OpenError
	if err := call(b, nil); !errors.As(err, &oe) || oe.Duration <= 50*time.Second || oe.Duration > time.Minute {
		t.Fatalf("the instance an hour ahead: %v, want open for about a minute", err)
	}
	late.mock.Add(59 * time.Second) // its own clock, not the server's
	if err := call(b, nil); !isOpen(err, breaker.Open) {
		t.Fatalf("b refuses on the duration it was told, from when it was told: %v", err)
	}
}

// TestBreakerClassifier: WithIsFailure decides; a panic in it counts a
// failure and goes on.
func TestBreakerClassifier(t *testing.T) {
	v := newVirtual()
	errNotFound := errors.New("not found")
	b := sharedBreakers(t, v, 1, WithBreaker(breaker.WithConsecutiveFailures(1)), WithBreaker(breaker.WithIsFailure(func(err error) bool {
		if err == errDown {
			panic("classifier")
		}
		return err != errNotFound
	})))[0]
	call(b, errNotFound)
	if got := b.State(); got != breaker.Closed {
		t.Fatalf("an error that is no failure tripped it: %v", got)
	}
	func() {
		defer func() {
			if r := recover(); r != "classifier" {
				t.Errorf("recovered %v, want the classifier's panic", r)
			}
		}()
		call(b, errDown)
	}()
	if got := b.State(); got != breaker.Open {
		t.Errorf("after a panicking classifier: %v, want open (a failure)", got)
	}
}

// TestBreakerRunAndPolicy: Run records a panic as a failure; in a
// Policy, a refusal stops the retry stage with the breaker's error.
func TestBreakerRunAndPolicy(t *testing.T) {
	v := newVirtual()
	b := sharedBreakers(t, v, 1, WithBreaker(breaker.WithConsecutiveFailures(2)))[0]
	func() {
		defer func() { recover() }()
		_ = b.Run(bg, func(context.Context) error { panic("boom") })
	}()
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		policy.Guard(b),
	)
	attempts := 0
	err := p.DoErr(bg, func(context.Context) error { attempts++; return errDown })
	if !errors.Is(err, breaker.ErrCircuitOpen) || attempts != 1 {
		t.Fatalf("DoErr = %v after %d attempts; want ErrCircuitOpen after 1 (the panic was the first failure)", err, attempts)
	}
	var e *backoff.Error
	if !errors.As(err, &e) || e.LastErr != errDown {
		t.Errorf("LastErr = %v, want %v", e, errDown)
	}
	var none context.Context // nil, on purpose
	if err := b.Run(none, nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("Run(nil, nil) = %v", err)
	}
}

// TestBreakerCachedPathAllocatesNothing: an admitted success on a fresh
// closed view makes no round trip and allocates nothing.
func TestBreakerCachedPathAllocatesNothing(t *testing.T) {
	v := newVirtual()
	b := sharedBreakers(t, v, 1)[0]
	before := roundTrips(b)
	n := testing.AllocsPerRun(100, func() {
		p, err := b.Allow(bg, first)
		if err != nil {
			t.Fatal(err)
		}
		b.Record(p, guard.Outcome{})
	})
	if n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
	if got := roundTrips(b) - before; got != 0 {
		t.Errorf("%d round trips, want 0", got)
	}
}
