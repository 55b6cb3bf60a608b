package policy

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A Timeout stage's context says what context.WithTimeout's says, whether
// or not anything waits on its Done channel: on the virtual time of a
// synctest bubble, where the deadline's instant is exact.
func TestDeadlineBehavesAsWithTimeout(t *testing.T) {
	t.Run("Err without Done", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			d := newDeadline(context.Background(), time.Second)
			defer d.end()
			if at, ok := d.Deadline(); !ok || !at.Equal(time.Now().Add(time.Second)) {
				t.Errorf("Deadline() = %v, %v; want a second from now", at, ok)
			}
			if err := d.Err(); err != nil {
				t.Fatalf("Err() before the deadline = %v", err)
			}
			<-time.After(time.Second)
			if err := d.Err(); err != context.DeadlineExceeded {
				t.Errorf("Err() at the deadline = %v, want DeadlineExceeded", err)
			}
			if err := context.Cause(d); err != context.DeadlineExceeded {
				t.Errorf("Cause = %v, want DeadlineExceeded", err)
			}
			select {
			case <-d.Done(): // asked for after the deadline: closed at once
			default:
				t.Error("Done is not closed after the deadline")
			}
			if d.real.Load() == nil {
				t.Error("Done made no timer context")
			}
		})
	})
	t.Run("Done closes at the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			d := newDeadline(context.Background(), 3*time.Second)
			defer d.end()
			<-d.Done()
			if got := time.Since(start); got != 3*time.Second || d.Err() != context.DeadlineExceeded {
				t.Errorf("Done after %v with %v, want after 3s with DeadlineExceeded", got, d.Err())
			}
		})
	})
	t.Run("the parent's cancellation and cause", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			parent, cancel := context.WithCancelCause(context.Background())
			d := newDeadline(parent, time.Hour)
			defer d.end()
			shutdown := errors.New("shutdown")
			cancel(shutdown)
			if d.Err() != context.Canceled || context.Cause(d) != shutdown {
				t.Errorf("without Done: Err %v, Cause %v; want Canceled, shutdown", d.Err(), context.Cause(d))
			}
			<-d.Done()
			if d.Err() != context.Canceled || context.Cause(d) != shutdown {
				t.Errorf("after Done: Err %v, Cause %v; want Canceled, shutdown", d.Err(), context.Cause(d))
			}
		})
	})
	t.Run("the parent's sooner deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			parent, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			d := newDeadline(parent, time.Hour)
			defer d.end()
			pd, _ := parent.Deadline()
			if at, _ := d.Deadline(); !at.Equal(pd) {
				t.Errorf("Deadline() = %v, want the parent's %v", at, pd)
			}
			start := time.Now()
			<-d.Done()
			if time.Since(start) != time.Second || d.Err() != context.DeadlineExceeded || parent.Err() == nil {
				t.Errorf("Done after %v with %v; want the parent's deadline, a second", time.Since(start), d.Err())
			}
		})
	})
	t.Run("the stage's end cancels it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			waited := newDeadline(context.Background(), time.Hour)
			ch := waited.Done()
			waited.end()
			<-ch
			unwaited := newDeadline(context.Background(), time.Hour)
			unwaited.end()
			if waited.Err() != context.Canceled || unwaited.Err() != context.Canceled {
				t.Errorf("after end: Err %v and %v, want Canceled", waited.Err(), unwaited.Err())
			}
			<-unwaited.Done() // made after the end: closed at once
		})
	})
	t.Run("a derived context ends with it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			d := newDeadline(context.Background(), 2*time.Second)
			defer d.end()
			child, cancel := context.WithCancel(d)
			defer cancel()
			stop := context.AfterFunc(d, func() {})
			defer stop()
			<-child.Done()
			if time.Since(start) != 2*time.Second || child.Err() != context.DeadlineExceeded {
				t.Errorf("the child ended after %v with %v, want after 2s with DeadlineExceeded", time.Since(start), child.Err())
			}
		})
	})
}

// Done, Err, Value and end may be called from any goroutine at once (run
// with -race).
func TestDeadlineConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDeadline(context.Background(), time.Second)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				switch i % 4 {
				case 0:
					<-d.Done()
				case 1:
					_ = d.Err()
				case 2:
					_ = d.Value("key")
				default:
					d.end()
				}
			})
		}
		wg.Wait()
		if d.Err() != context.Canceled {
			t.Errorf("Err() = %v, want Canceled: the stage ended", d.Err())
		}
	})
}

// A call that returns before looking at its context's Done channel costs
// the Timeout stage one allocation, its context.
func TestDeadlineCostsOneAllocation(t *testing.T) {
	p := New(Timeout(time.Second))
	ctx := context.Background()
	if n := testing.AllocsPerRun(200, func() {
		_ = p.DoErr(ctx, func(context.Context) error { return nil })
	}); n != 1 {
		t.Errorf("%v allocations per call, want 1", n)
	}
}
