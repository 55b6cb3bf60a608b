package backoff

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// cloningBackOff is a BackOff of the caller's own that can be shared,
// because it has a Clone method: every run works on a copy.
type cloningBackOff struct {
	clones *atomic.Int64
	next   time.Duration
	calls  int
}

func (b *cloningBackOff) NextBackOff() time.Duration {
	b.calls++
	return b.next * time.Duration(b.calls)
}
func (b *cloningBackOff) Reset() { b.calls = 0 }
func (b *cloningBackOff) Clone() BackOff {
	b.clones.Add(1)
	c := *b
	return &c
}

// The one rule of BackOff: a run works on a copy of a BackOff with a Clone
// method, so one value may be shared by concurrent runs (run with -race);
// the value itself is never called.
func TestBackOffWithCloneIsShared(t *testing.T) {
	clones := new(atomic.Int64)
	shared := &cloningBackOff{clones: clones}
	ctx := WithTestingBypass(context.Background())
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := specFailThenSucceed(3)
			n := &specNotify{}
			if _, err := Do(ctx, func(context.Context) (int, error) { return op.run() },
				WithBackOff(shared), WithNotify(n.notify)); err != nil {
				t.Error(err)
			}
			// Each run's copy starts its sequence over: 0, 0, 0 of a
			// zero step; what matters is that it made three retries.
			if len(n.delays) != 3 {
				t.Errorf("%d retries, want 3", len(n.delays))
			}
		}()
	}
	wg.Wait()
	if shared.calls != 0 || clones.Load() != 8 {
		t.Errorf("the shared BackOff was called %d times and cloned %d times; want 0 and 8", shared.calls, clones.Load())
	}
	// A run that succeeds at once makes no copy.
	_, _ = Retry(succeed, WithBackOff(shared))
	if clones.Load() != 8 {
		t.Errorf("a successful run cloned the BackOff")
	}
}

// WithContext keeps the rule: wrapping one shared *ExponentialBackOff for
// each call is safe (run with -race), and each call's wait sequence is its
// own.
func TestWithContextOfASharedBackOff(t *testing.T) {
	shared := specExp(time.Second, time.Minute)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := &specNotify{}
			op := specFailThenSucceed(3)
			if _, err := RetryCtx(WithTestingBypass(ctx), op.run, WithBackOff(WithContext(ctx, shared)), WithNotify(n.notify)); err != nil {
				t.Error(err)
			}
			if len(n.delays) != 3 || n.delays[0] != time.Second || n.delays[2] != 4*time.Second {
				t.Errorf("waits %v, want 1s 2s 4s", n.delays)
			}
		}()
	}
	wg.Wait()
	// A Ticker works on a copy too: the shared value's sequence is untouched.
	clk := newSpecClock()
	ticker := NewTickerWithClock(WithContext(context.Background(), shared), clk)
	<-ticker.C
	if d := <-clk.waits; d != time.Second {
		t.Errorf("the Ticker's first wait %v, want 1s", d)
	}
	ticker.Stop()
	if got := shared.NextBackOff(); got != time.Second {
		t.Errorf("after the calls and the Ticker, the shared BackOff's next wait is %v; want 1s, untouched", got)
	}
}
