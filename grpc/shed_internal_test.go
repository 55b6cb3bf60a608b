package grpcbackoff

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpshed"
	"github.com/herdsafe/backoff/internal/testkit/guardstate"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// retryAfter is a refusal that names its own wait.
type retryAfter time.Duration

func (r retryAfter) Error() string             { return "come back later" }
func (r retryAfter) RetryAfter() time.Duration { return time.Duration(r) }

// state is a guard in a state, and the refusal it gave.
type state struct {
	name    string
	g       guard.Guard
	refusal error
	want    time.Duration // the wait before the spread, 1 s the base
}

// states builds a guard of each kind in a state that asks for more than
// the base, inside a synctest bubble; release ends what they hold.
func states(t *testing.T) (sts []state, release func()) {
	bh := bulkhead.New(2, bulkhead.WithQueue(3))
	releaseBulkhead, full := guardstate.Crowd(t, bh, 2, 3)
	lim := limiter.New(limiter.WithInitialLimit(3), limiter.WithQueue(4))
	releaseLimiter, over := guardstate.Crowd(t, lim, 3, 4)
	cb, _, open := guardstate.OpenBreaker(t, 30*time.Second, 12300*time.Millisecond)

	th := throttle.New(throttle.WithClock(spectest.NewClock()), throttle.WithRandom(func() float64 { return 0.99999 }), throttle.WithMaxRejection(1))
	for range 3 { // p = 3/4
		p, _ := th.Allow(context.Background(), guard.Call{Attempt: 1})
		th.Record(p, guard.Outcome{Err: errors.New("failed")})
	}

	sts = []state{
		{"bulkhead", bh, guard.Refusal(full), 2500 * time.Millisecond}, // (2 + 3) / 2
		{"limiter", lim, guard.Refusal(over), 2333333333},              // (3 + 4) / 3
		{"breaker", cb, guard.Refusal(open), 17700 * time.Millisecond}, // 30 s − 12.3 s
		{"throttle", th, guard.Refusal(throttle.ErrThrottled), 4 * time.Second},
		{"named", budget.NewTokenBucket(), guard.Refusal(retryAfter(6500 * time.Millisecond)), 6500 * time.Millisecond},
		{"other", budget.NewTokenBucket(), guard.Refusal(budget.ErrBudgetExhausted), time.Second},
	}
	return sts, func() {
		releaseBulkhead()
		releaseLimiter()
	}
}

// The two wires tell the same wait for the same state and the same draw,
// each in its own unit: they differ by less than a second, Retry-After's
// unit, and with no spread each is the wait rounded up to its unit.
func TestBothWiresTellTheSameWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sts, release := states(t)
		defer release()
		for _, st := range sts {
			for _, u := range []float64{0, 0.1, 0.25, 0.5, 0.7, 0.9, math.Nextafter(1, 0)} {
				random := func() float64 { return u }
				h := httpshed.New(st.g, httpshed.WithRandom(random), httpshed.WithMaxRetryAfter(time.Minute))
				g := newShedder("test", st.g, []ServerOption{WithPushback(time.Second, time.Minute), WithPushbackRandom(random)})
				if err := h.Validate(); err != nil || g.err != nil {
					t.Fatal(err, g.err)
				}
				hw, gw := h.RetryAfter(st.refusal), g.wait(st.refusal)
				if diff := hw - gw; diff <= -time.Second || diff >= time.Second {
					t.Errorf("%s, u = %v: Retry-After %v, pushback %v: more than a second apart", st.name, u, hw, gw)
				}
				if u != 0 {
					continue
				}
				if hw != (st.want+time.Second-1).Truncate(time.Second) || gw != (st.want+time.Millisecond-1).Truncate(time.Millisecond) {
					t.Errorf("%s, no spread: Retry-After %v, pushback %v; want %v rounded up to each unit", st.name, hw, gw, st.want)
				}
			}
		}
	})
}
