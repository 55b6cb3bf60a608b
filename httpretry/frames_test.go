package httpretry

import (
	"context"
	"net/http"
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

// ownFrames is the most frames of this package between the caller of
// Transport.RoundTrip and the base RoundTripper: RoundTrip, and the one
// attempt it hands its Policy, which calls the base itself.
const ownFrames = 2

// The request reaches the base through RoundTrip, the Transport's Policy
// (a request guard, the retry stage, an attempt guard, a timeout) and the
// attempt, and nothing else: the Transport adds at most ownFrames to the
// frames of a Policy of the same stages called directly.
func TestFramesToTheBase(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   []Option
		stages []policy.Stage
	}{
		{"bare", nil, []policy.Stage{policy.Retry()}},
		{"guarded", []Option{WithRequestGuards(bulkhead.New(10)), WithAttemptGuards(breaker.New())},
			[]policy.Stage{policy.Guard(bulkhead.New(10)), policy.Retry(), policy.Guard(breaker.New())}},
		{"guarded_timeout", []Option{WithRequestGuards(bulkhead.New(10)), WithAttemptGuards(breaker.New()), WithAttemptTimeout(time.Minute)},
			[]policy.Stage{policy.Guard(bulkhead.New(10)), policy.Retry(), policy.Guard(breaker.New()), policy.Timeout(time.Minute)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := &framesBase{}
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
			if _, err := NewTransport(base, c.opts...).RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			var direct []runtime.Frame
			if err := policy.New(c.stages...).Attempts(context.Background(), func(context.Context, backoff.Attempt) error {
				direct = callers(2)
				return nil
			}); err != nil {
				t.Fatal(err)
			}

			own := 0
			for _, f := range base.frames {
				if strings.HasPrefix(f.Function, "github.com/herdsafe/backoff/httpretry.") {
					own++
				}
			}
			if own > ownFrames {
				t.Errorf("%d frames of package httpretry between RoundTrip's caller and the base, want %d at most", own, ownFrames)
			}
			if len(base.frames) != len(direct)+own {
				t.Errorf("%d frames to the base, %d of them httpretry's; want those and the %d of the Policy alone", len(base.frames), own, len(direct))
			}
			if len(base.frames) > 9 {
				t.Errorf("%d frames from RoundTrip's caller to the base, want 9 at most", len(base.frames))
			}
			t.Logf("%d frames to the base RoundTripper: %d of httpretry, %d of the Policy (a Policy called directly: %d)", len(base.frames), own, len(base.frames)-own, len(direct))
			if t.Failed() || testing.Verbose() {
				for _, f := range base.frames {
					t.Logf("%s %s:%d", f.Function, filepath.Base(f.File), f.Line)
				}
			}
		})
	}
}

// framesBase is a base RoundTripper that records the frames of its
// callers, up to the test.
type framesBase struct{ frames []runtime.Frame }

func (b *framesBase) RoundTrip(*http.Request) (*http.Response, error) {
	b.frames = callers(2)
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

// callers returns the frames of the caller of the function that calls it
// (skip 2) and of its callers, up to the subtest's function, which it
// leaves out.
func callers(skip int) []runtime.Frame {
	pcs := make([]uintptr, 64)
	it := runtime.CallersFrames(pcs[:runtime.Callers(skip+1, pcs)])
	var frames []runtime.Frame
	for {
		f, more := it.Next()
		if strings.HasSuffix(f.Function, ".TestFramesToTheBase.func1") { // the subtest
			break
		}
		if strings.HasSuffix(f.Function, ".TestFramesToTheBase") {
			break
		}
		frames = append(frames, f)
		if !more {
			break
		}
	}
	return frames
}
