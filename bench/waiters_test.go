package bench

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	retryv4 "github.com/avast/retry-go/v4"
	retryv5 "github.com/avast/retry-go/v5"
	cenkaltiv5 "github.com/cenkalti/backoff/v5"
	cenkaltiv7 "github.com/cenkalti/backoff/v7"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
	sethretry "github.com/sethvargo/go-retry"
)

// waiters is how many goroutines wait at once in BenchmarkWaiters.
const waiters = 10_000

// hour is the first wait of every waiter: long enough that only the
// cancellation ends it.
const hour = time.Hour

// waiterLib is one row of BenchmarkWaiters. prepare returns its call for a
// run whose waiters share ctx: the libraries that bind the context when
// their retrier is built (avast/retry-go v5, failsafe-go) build one there,
// which all the waiters of the run share. Every row is then called as the
// other benchmarks call a lib, through lib.call from the goroutine's
// function, with an operation that fails: the frames above the library are
// the same for every row.
type waiterLib struct {
	name    string
	prepare func(ctx context.Context) call
}

var (
	herdsafeHour = backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(hour), backoff.WithMaxInterval(hour))
	// herdsafeHourPolicy is a retry stage on herdsafeHour. A stage has no
	// time budget unless given one, so the one-hour wait is started.
	herdsafeHourPolicy = policy.New(policy.Retry(backoff.WithBackOff(herdsafeHour),
		backoff.WithMaxTries(maxAttempts)))
	failsafeHour = retrypolicy.NewBuilder[int]().
			WithMaxAttempts(maxAttempts).
			WithBackoff(hour, 2*hour).
			Build()
)

// perCall is prepare for the rows that take everything per call.
func perCall(c call) func(context.Context) call {
	return func(context.Context) call { return c }
}

var waiterLibs = []waiterLib{
	{"bare", perCall(func(ctx context.Context, op operation) (int, error) {
		v, err := op()
		t := time.NewTimer(hour)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		return v, err
	})},
	{"herdsafe", perCall(func(ctx context.Context, op operation) (int, error) {
		// One *ExponentialBackOff configures every call: the driver keeps
		// its state in a copy of its own.
		return backoff.RetryCtx(ctx, op, backoff.WithBackOff(herdsafeHour),
			backoff.WithMaxTries(maxAttempts), backoff.WithMaxElapsedTime(0))
	})},
	{"herdsafe-policy", perCall(func(ctx context.Context, op operation) (int, error) {
		return policy.Do(ctx, herdsafeHourPolicy, func(context.Context) (int, error) { return op() })
	})},
	{"cenkalti-v5", perCall(func(ctx context.Context, op operation) (int, error) {
		b := cenkaltiv5.NewExponentialBackOff()
		b.InitialInterval, b.MaxInterval = hour, hour
		return cenkaltiv5.Retry(ctx, op,
			cenkaltiv5.WithBackOff(b), cenkaltiv5.WithMaxTries(maxAttempts), cenkaltiv5.WithMaxElapsedTime(0))
	})},
	{"cenkalti-v7", perCall(func(ctx context.Context, op operation) (int, error) {
		b := cenkaltiv7.NewExponentialBackOff()
		b.InitialInterval, b.MaxInterval = hour, hour
		return cenkaltiv7.Retry(ctx, op,
			cenkaltiv7.WithBackOff(b), cenkaltiv7.WithMaxTries(maxAttempts), cenkaltiv7.WithMaxElapsedTime(0))
	})},
	{"sethvargo", perCall(func(ctx context.Context, op operation) (int, error) {
		b := sethretry.WithMaxRetries(maxAttempts-1, sethretry.NewExponential(hour))
		return sethretry.DoValue(ctx, b, sethOp(op))
	})},
	{"avast-v4", perCall(func(ctx context.Context, op operation) (int, error) {
		return retryv4.DoWithData(op, retryv4.Attempts(maxAttempts), retryv4.Context(ctx), retryv4.Delay(hour))
	})},
	{"avast-v5", func(ctx context.Context) call {
		r := retryv5.NewWithData[int](retryv5.Attempts(maxAttempts), retryv5.Context(ctx), retryv5.Delay(hour))
		return func(_ context.Context, op operation) (int, error) { return r.Do(op) }
	}},
	{"failsafe", func(ctx context.Context) call {
		e := failsafe.With[int](failsafeHour).WithContext(ctx)
		return func(_ context.Context, op operation) (int, error) { return e.Get(op) }
	}},
}

// BenchmarkWaiters puts 10,000 goroutines each in a one-hour retry wait,
// then cancels their shared context once. It reports the memory each
// waiting goroutine holds (B/waiter: heap and stack), the time from the
// cancel until every goroutine has returned (cancel-ns), the goroutines
// still alive afterwards (leaked-goroutines), and the memory still held
// after they returned (retained-B/waiter). The bare row is a goroutine
// blocked in a select on a time.Timer and ctx.Done().
func BenchmarkWaiters(b *testing.B) {
	for _, l := range waiterLibs {
		b.Run(l.name, func(b *testing.B) {
			warmGoroutines(waiters)
			var r waitersResult
			for b.Loop() {
				r.add(runWaiters(b, l, waiters))
			}
			n := float64(b.N)
			b.ReportMetric(r.bytes/n, "B/waiter")
			b.ReportMetric(r.stack/n, "stack-B/waiter")
			b.ReportMetric(r.cancel/n, "cancel-ns")
			b.ReportMetric(r.leaked/n, "leaked-goroutines")
			b.ReportMetric(r.retained/n, "retained-B/waiter")
		})
	}
}

type waitersResult struct{ bytes, stack, cancel, leaked, retained float64 }

func (r *waitersResult) add(o waitersResult) {
	r.bytes += o.bytes
	r.stack += o.stack
	r.cancel += o.cancel
	r.leaked += o.leaked
	r.retained += o.retained
}

// runWaiters runs one round of BenchmarkWaiters.
func runWaiters(tb testing.TB, w waiterLib, n int) waitersResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := lib{name: w.name, call: w.prepare(ctx)}
	var started atomic.Int64
	op := func() (int, error) {
		started.Add(1)
		return 0, errSentinel
	}
	var rd waitersRound
	before := memInUse()
	// The goroutines counted before the round, after the collections,
	// which give a goroutine that is still ending (the previous test's)
	// time to end. The count serves only to find goroutines left behind
	// after the round: the waiters that returned are counted as they
	// return.
	g0 := runtime.NumGoroutine()

	rd.wg.Add(n)
	for range n {
		go func() {
			defer rd.done()
			_, _ = l.call(ctx, op)
		}()
	}
	if !allParked(&started, int64(n), 10*time.Second) {
		cancel()
		rd.wg.Wait()
		tb.Fatalf("%s: the waiters did not all block within 10s", l.name)
	}
	during := memInUse()
	if k := rd.returned.Load(); k > 0 {
		cancel()
		rd.wg.Wait()
		tb.Fatalf("%s: %d of %d waiters returned before the cancel; they did not wait", l.name, k, n)
	}

	t0 := time.Now()
	cancel()
	rd.wg.Wait()
	latency := time.Since(t0)

	leaked := settle(g0, 100*time.Millisecond)
	after := memInUse()
	return waitersResult{
		bytes:    float64(during.total()-before.total()) / float64(n),
		stack:    float64(during.stack-before.stack) / float64(n),
		cancel:   float64(latency.Nanoseconds()),
		leaked:   float64(leaked),
		retained: float64(max(after.total()-before.total(), 0)) / float64(n),
	}
}

// waitersRound is what the waiters of one round share: the group they are
// in, and how many of them have returned. It is counted where the waiters
// return, not inferred from runtime.NumGoroutine, which counts every
// goroutine of the process: one that was still ending when the round
// began (the tRunner of the previous test) ends during it, and the count
// is read without a lock while the runtime moves goroutines between its
// free lists, so a waiter that never returned could seem to have.
type waitersRound struct {
	wg       sync.WaitGroup
	returned atomic.Int64
}

// done is deferred by each waiter: it has returned.
func (rd *waitersRound) done() {
	rd.returned.Add(1)
	rd.wg.Done()
}

// memory is what is in use after a collection: the bytes of heap objects,
// and of goroutine stacks.
type memory struct{ heap, stack int64 }

func memInUse() memory {
	// The first collection shrinks stacks that grew and no longer need
	// their size; the second frees the stack spans that emptied.
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memory{int64(ms.HeapAlloc), int64(ms.StackInuse)}
}

func (m memory) total() int64 { return m.heap + m.stack }

var schedSamples = []metrics.Sample{
	{Name: "/sched/goroutines/runnable:goroutines"},
	{Name: "/sched/goroutines/running:goroutines"},
}

// allParked waits until n operations have started and no goroutine is
// runnable any more but the caller, so that every waiter is blocked in its
// wait. It reports false if that takes longer than limit.
func allParked(started *atomic.Int64, n int64, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if started.Load() == n {
			metrics.Read(schedSamples)
			if schedSamples[0].Value.Uint64() == 0 && schedSamples[1].Value.Uint64() <= 1 {
				return true
			}
		}
		runtime.Gosched()
	}
	return false
}

// settle waits up to limit for the goroutine count to fall back to g0, and
// returns how many goroutines are left over.
func settle(g0 int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n := runtime.NumGoroutine() - g0
		if n <= 0 {
			return 0
		}
		if time.Now().After(deadline) {
			return n
		}
		runtime.Gosched()
	}
}

// warmGoroutines starts and ends n goroutines, so that the runtime has n
// goroutine descriptors to reuse and every row pays for stacks and its own
// state only, whichever runs first.
func warmGoroutines(n int) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		go func() {
			defer wg.Done()
			<-release
		}()
	}
	close(release)
	wg.Wait()
	settle(0, 100*time.Millisecond)
}
