package backoff

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// "Notify fires once per retry and never for the final error", with the
// operation's error and the wait that follows.
func TestDriverNotifiesOncePerRetry(t *testing.T) {
	s := time.Second
	errBad := errors.New("bad request")
	cases := []struct {
		name   string
		opts   []RetryOption
		op     *specOp
		errs   []error
		delays []time.Duration
	}{
		{"exhausted", []RetryOption{WithMaxTries(4)}, specAlways(),
			[]error{attemptErr(1), attemptErr(2), attemptErr(3)}, []time.Duration{s, s, s}},
		{"success", nil, specFailThenSucceed(2),
			[]error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"permanent", nil, specScript(func(n int) (int, error) {
			if n == 3 {
				return n, Permanent(errBad)
			}
			return n, attemptErr(n)
		}), []error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"max elapsed time", []RetryOption{WithMaxElapsedTime(2500 * time.Millisecond)}, specAlways(),
			[]error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"retry after", []RetryOption{WithMaxTries(2)}, specScript(func(n int) (int, error) {
			return n, RetryAfter(7*s, attemptErr(n))
		}), []error{attemptErr(1)}, []time.Duration{7 * s}},
		{"rejected by the classifier", []RetryOption{WithRetryable(func(err error) bool {
			return !errors.Is(err, attemptErr(3))
		})}, specAlways(), []error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"BackOff Stop", []RetryOption{WithBackOff(&specBackOff{seq: []time.Duration{s}})}, specAlways(),
			[]error{attemptErr(1)}, []time.Duration{s}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newSpecClock()
			var n specNotify
			opts := append([]RetryOption{WithBackOff(NewConstantBackOff(s)), WithClock(clk), WithNotify(n.Notify)}, c.opts...)
			waits := specDrive(t, clk, nil, func() { _, _ = Retry(c.op.Run, opts...) })
			if c.op.Count() != len(c.errs)+1 {
				t.Fatalf("the operation ran %d times, want %d", c.op.Count(), len(c.errs)+1)
			}
			if len(n.Errs) != len(c.errs) {
				t.Fatalf("Notify called %d times with %v, want %d times", len(n.Errs), n.Errs, len(c.errs))
			}
			for i := range c.errs {
				if !errors.Is(n.Errs[i], c.errs[i]) {
					t.Errorf("Notify call %d got %v, want %v", i+1, n.Errs[i], c.errs[i])
				}
			}
			if !slices.Equal(n.Delays, c.delays) {
				t.Errorf("Notify delays %v, want %v", n.Delays, c.delays)
			}
			if !slices.Equal(n.Delays, waits) {
				t.Errorf("Notify delays %v, but the driver waited %v", n.Delays, waits)
			}
		})
	}
}

// Cancelling the context inside Notify means no further attempt, whether
// a wait follows or not.
func TestDriverCancelInNotifyMakesNoFurtherAttempt(t *testing.T) {
	backOffs := []struct {
		name string
		b    func() BackOff
	}{
		{"zero wait", func() BackOff { return &ZeroBackOff{} }},
		{"one second wait", func() BackOff { return NewConstantBackOff(time.Second) }},
	}
	for _, p := range backOffs {
		for _, e := range specCtxEntries {
			t.Run(p.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				op := specAlways()
				notify := func(error, time.Duration) { cancel() }
				var err error
				// A wait, if one starts, is never advanced.
				specDrive(t, clk, func(int, time.Duration) {}, func() {
					_, err = e.run(ctx, op.Run, WithBackOff(p.b()), WithClock(clk), WithNotify(notify), WithMaxTries(3))
				})
				if op.Count() != 1 {
					t.Errorf("the operation ran %d times after Notify cancelled, want 1", op.Count())
				}
				specCheckStop(t, err, context.Canceled, attemptErr(1))
			})
		}
	}
}
