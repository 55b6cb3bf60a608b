package policy_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/policy"
)

// A Policy compiled once reaches the function through few frames: the
// retry driver's and one per segment. With a retry stage around a breaker
// and a timeout, at most 8 stand between the caller of Do (or DoErr, or
// Attempts) and the function; at most 9 with a bulkhead outside the retry
// stage, as failsafe-go's executors do.
func TestFramesToTheFunction(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *policy.Policy
		max  int
	}{
		{"retry, breaker, timeout", policy.New(
			policy.Retry(),
			policy.Guard(breaker.New()),
			policy.Timeout(time.Minute),
		), 8},
		{"bulkhead, retry, breaker, timeout", policy.New(
			policy.Guard(bulkhead.New(4)),
			policy.Retry(),
			policy.Guard(breaker.New()),
			policy.Timeout(time.Minute),
		), 9},
	} {
		ctx := context.Background()
		var frames []runtime.Frame
		entries := []struct {
			name string
			call func() error
		}{
			{"Do", func() error {
				_, err := policy.Do(ctx, tc.p, func(context.Context) (int, error) {
					frames = callers()
					return 1, nil
				})
				return err
			}},
			{"DoErr", func() error {
				return tc.p.DoErr(ctx, func(context.Context) error {
					frames = callers()
					return nil
				})
			}},
			{"Attempts", func() error {
				return tc.p.Attempts(ctx, func(context.Context, backoff.Attempt) error {
					frames = callers()
					return nil
				})
			}},
		}
		for _, e := range entries {
			frames = nil
			if err := e.call(); err != nil {
				t.Fatalf("%s, %s: %v", tc.name, e.name, err)
			}
			if len(frames) == 0 || len(frames) > tc.max {
				t.Errorf("%s, %s: %d frames between the caller and the function, want at most %d", tc.name, e.name, len(frames), tc.max)
				for _, f := range frames {
					t.Logf("\t%s %s:%d", f.Function, filepath.Base(f.File), f.Line)
				}
			}
		}
	}
}

// callers returns the frames, inlined ones included, between the function
// that calls it and the caller of the policy's entry point: a func literal
// of TestFramesToTheFunction.
func callers() []runtime.Frame {
	pcs := make([]uintptr, 64)
	it := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)]) // the function's caller first
	var frames []runtime.Frame
	for {
		f, more := it.Next()
		if strings.Contains(f.Function, "TestFramesToTheFunction.func") {
			return frames
		}
		frames = append(frames, f)
		if !more {
			return nil // the caller was not found
		}
	}
}
