package bulkhead_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

var errCall = errors.New("the call failed")

// bulkheadGuard is what the tests ask of both bulkheads.
type bulkheadGuard interface {
	guard.Guard
	guard.Validator
	Run(ctx context.Context, fn func(context.Context) error) error
}

// allow asks g for a slot with a Call of attempt 1.
func allow(g guard.Guard, ctx context.Context) error {
	_, err := g.Allow(ctx, guard.Call{Attempt: 1})
	return err
}

// record frees one slot of g.
func record(g guard.Guard) { g.Record(guard.Permit{}, guard.Outcome{}) }

// fill takes n slots of g, failing the test if one is refused.
func fill(t *testing.T, g guard.Guard, ctx context.Context, n int) {
	t.Helper()
	for i := range n {
		if err := allow(g, ctx); err != nil {
			t.Fatalf("call %d of %d refused: %v", i+1, n, err)
		}
	}
}

func wantStats(t *testing.T, b *bulkhead.Bulkhead, want bulkhead.Stats) {
	t.Helper()
	if got := b.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

func TestAdmitsUpToCapacity(t *testing.T) {
	for _, capacity := range []int{1, 2, 10} {
		b := bulkhead.New(capacity)
		ctx := context.Background()
		fill(t, b, ctx, capacity)
		wantStats(t, b, bulkhead.Stats{Capacity: capacity, InFlight: capacity})

		err := allow(b, ctx)
		if !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("capacity %d: call %d: %v, want ErrBulkheadFull", capacity, capacity+1, err)
		}
		wantStats(t, b, bulkhead.Stats{Capacity: capacity, InFlight: capacity, Refused: 1})

		record(b)
		if err := allow(b, ctx); err != nil {
			t.Fatalf("capacity %d: a freed slot was not given: %v", capacity, err)
		}
		for range capacity {
			record(b)
		}
		wantStats(t, b, bulkhead.Stats{Capacity: capacity, Refused: 1})
	}
}

// The outcome does not matter: a failed, abandoned or panicked call frees
// its slot like a successful one.
func TestRecordFreesWhateverTheOutcome(t *testing.T) {
	b := bulkhead.New(1)
	for _, o := range []guard.Outcome{{}, {Err: errCall}, {Err: errCall, Abandoned: true}} {
		p, err := b.Allow(context.Background(), guard.Call{Attempt: 3})
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		b.Record(p, o)
		if n := b.Stats().InFlight; n != 0 {
			t.Fatalf("%+v: %d in flight after Record, want 0", o, n)
		}
	}
}

func TestRecordWithoutAllowPanics(t *testing.T) {
	for name, g := range map[string]guard.Guard{
		"Bulkhead":         bulkhead.New(2),
		"PriorityBulkhead": bulkhead.NewPriority(2, bulkhead.WithThresholds(1, 1)),
	} {
		t.Run(name, func(t *testing.T) {
			fill(t, g, context.Background(), 1)
			record(g)
			defer func() {
				if recover() == nil {
					t.Error("a second Record did not panic")
				}
				if err := allow(g, context.Background()); err != nil {
					t.Errorf("after the panic: %v", err) // the count is intact
				}
			}()
			record(g)
		})
	}
}

// A done context is refused before a slot is taken, with the context's
// error, which does not match ErrBulkheadFull: the caller gave up. Allow
// counts it in Canceled; Run refuses it before asking the bulkhead (the
// rule of guard.Run), with a refusal that wraps the context's cause.
func TestDoneContextIsRefused(t *testing.T) {
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for name, g := range map[string]bulkheadGuard{
		"Bulkhead":         bulkhead.New(1),
		"queued Bulkhead":  bulkhead.New(1, bulkhead.WithQueue(1)),
		"PriorityBulkhead": bulkhead.NewPriority(10),
	} {
		t.Run(name, func(t *testing.T) {
			err := allow(g, ctx)
			checkContextError(t, err, context.Canceled, cause)
			ran := false
			err = g.Run(ctx, func(context.Context) error { ran = true; return nil })
			checkContextError(t, err, cause)
			if !errors.Is(err, backoff.ErrRefused) {
				t.Errorf("Run = %v, want a refusal", err)
			}
			if ran {
				t.Error("Run ran fn with a done context")
			}
			fill(t, g, context.Background(), 1) // no slot was taken
			record(g)
		})
	}
}

// checkContextError checks that err matches each of want and not
// ErrBulkheadFull.
func checkContextError(t *testing.T, err error, want ...error) {
	t.Helper()
	if err == nil {
		t.Fatal("nil error, want the context's")
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%v does not match %v", err, w)
		}
	}
	if errors.Is(err, bulkhead.ErrBulkheadFull) {
		t.Errorf("%v matches ErrBulkheadFull; a caller that gave up was not refused", err)
	}
}

func TestRun(t *testing.T) {
	for name, g := range map[string]bulkheadGuard{
		"Bulkhead":         bulkhead.New(1),
		"PriorityBulkhead": bulkhead.NewPriority(2, bulkhead.WithThresholds(0.5, 0.5)),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if err := g.Run(ctx, func(context.Context) error { return errCall }); err != errCall {
				t.Errorf("Run = %v, want fn's error as is", err)
			}
			if err := g.Run(ctx, func(ctx context.Context) error {
				return g.Run(ctx, func(context.Context) error { return nil }) // no slot left
			}); !errors.Is(err, bulkhead.ErrBulkheadFull) || !errors.Is(err, backoff.ErrRefused) {
				t.Errorf("nested Run = %v, want a refusal matching ErrBulkheadFull", err)
			}
			if err := g.Run(ctx, nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
				t.Errorf("Run(nil fn) = %v, want ErrInvalidConfiguration", err)
			}
			//lint:ignore SA1012 a nil context is what is tested
			if err := g.Run(nil, func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
				t.Errorf("Run(nil ctx) = %v, want ErrInvalidConfiguration", err)
			}
			func() {
				defer func() {
					if r := recover(); r != errCall {
						t.Errorf("recovered %v, want fn's panic to go on", r)
					}
				}()
				_ = g.Run(ctx, func(context.Context) error { panic(errCall) })
			}()
			if err := g.Run(ctx, func(context.Context) error { return nil }); err != nil {
				t.Errorf("after a panic: %v; the slot was not freed", err)
			}
		})
	}
}

// In a Policy a refusal is the Cause of the *backoff.Error, and it stops a
// retry stage inside which the bulkhead stands at once.
func TestInPolicy(t *testing.T) {
	b := bulkhead.New(1)
	ctx := context.Background()
	fill(t, b, ctx, 1)
	var calls int
	p := policy.New(policy.Retry(backoff.WithMaxTries(5)), policy.Guard(b))
	err := p.DoErr(ctx, func(context.Context) error { calls++; return nil })
	var e *backoff.Error
	if !errors.As(err, &e) || !errors.Is(e.Cause, bulkhead.ErrBulkheadFull) || !errors.Is(e.Cause, backoff.ErrRefused) {
		t.Fatalf("DoErr = %v, want an *Error with Cause a refusal matching ErrBulkheadFull", err)
	}
	if calls != 0 || !guard.IsRefusal(err) {
		t.Errorf("%d calls, IsRefusal %v; want 0 calls and a refusal", calls, guard.IsRefusal(err))
	}
	record(b)
	if err := p.DoErr(ctx, func(context.Context) error { calls++; return nil }); err != nil || calls != 1 {
		t.Errorf("with a free slot: %v after %d calls", err, calls)
	}
	wantStats(t, b, bulkhead.Stats{Capacity: 1, Refused: 1})
}

// N goroutines ask at once for the slots of a bulkhead that nobody frees:
// exactly capacity are admitted, and the rest refused and counted.
func TestConcurrentAdmissionsAreExact(t *testing.T) {
	const capacity, callers = 7, 64
	b := bulkhead.New(capacity)
	var admitted, refused atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			switch err := allow(b, context.Background()); {
			case err == nil:
				admitted.Add(1)
			case errors.Is(err, bulkhead.ErrBulkheadFull):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if admitted.Load() != capacity || refused.Load() != callers-capacity {
		t.Errorf("%d admitted and %d refused, want %d and %d", admitted.Load(), refused.Load(), capacity, callers-capacity)
	}
	wantStats(t, b, bulkhead.Stats{Capacity: capacity, InFlight: capacity, Refused: callers - capacity})
}

// Under load, the calls in flight never exceed the capacity, and every slot
// comes back.
func TestConcurrentCallsStayWithinCapacity(t *testing.T) {
	const capacity, callers, rounds = 3, 16, 300
	b := bulkhead.New(capacity)
	var active, peak, admitted atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range rounds {
				err := b.Run(context.Background(), func(context.Context) error {
					n := active.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					active.Add(-1)
					return nil
				})
				if err == nil {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if peak.Load() > capacity {
		t.Errorf("%d calls in flight at once, capacity %d", peak.Load(), capacity)
	}
	s := b.Stats()
	if s.InFlight != 0 || uint64(admitted.Load())+s.Refused != callers*rounds {
		t.Errorf("Stats() = %+v after %d admitted of %d", s, admitted.Load(), callers*rounds)
	}
}

// The admitted path allocates nothing: Allow and Record, Run, a Policy
// with the bulkhead as its guard; nor does a refusal without a queue.
func TestSuccessPathAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	b := bulkhead.New(4)
	pb := bulkhead.NewPriority(4)
	full := bulkhead.New(1)
	fill(t, full, ctx, 1)
	critical := bulkhead.WithPriority(ctx, bulkhead.Critical)
	fn := func(context.Context) error { return nil }
	p := policy.New(policy.Guard(b), policy.Retry())
	cases := []struct {
		name string
		run  func()
	}{
		{"Allow and Record", func() {
			p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
			b.Record(p, guard.Outcome{})
		}},
		{"Run", func() { _ = b.Run(ctx, fn) }},
		{"Policy", func() { _ = p.DoErr(ctx, fn) }},
		{"refusal", func() { _ = allow(full, ctx) }},
		{"priority Allow and Record", func() {
			p, _ := pb.Allow(critical, guard.Call{Attempt: 1})
			pb.Record(p, guard.Outcome{})
		}},
		{"priority Run", func() { _ = pb.Run(ctx, fn) }},
	}
	for _, c := range cases {
		if n := testing.AllocsPerRun(200, c.run); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, n)
		}
	}
	if s := b.Stats(); s.InFlight != 0 || s.Refused != 0 {
		t.Errorf("Stats() = %+v, want nothing in flight and no refusal", s)
	}
}
