package bulkhead

import (
	"math"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/setting"
)

// MaxCapacity is the largest capacity, and the largest queue, a [Bulkhead]
// or a [PriorityBulkhead] accepts.
const MaxCapacity = math.MaxInt32

// Option configures a [Bulkhead]. The defaults are no queue (a call that
// finds every slot taken is refused at once), no maximum wait, and the
// wall clock.
type Option func(*config)

// config is what the options of a Bulkhead set.
type config struct {
	wait  queue.Settings
	clock clock.Clock
	err   error // the first bad setting
}

// WithQueue lets up to n callers wait for a slot when every slot is taken;
// a caller that finds n already waiting is refused with [ErrBulkheadFull].
// A slot that is freed goes to the caller that has waited longest. A
// caller waits until a slot is freed, its context is done, or the maximum
// wait ([WithMaxWait]) passes. The default, 0, is no queue. A negative n,
// or one above [MaxCapacity], is invalid.
func WithQueue(n int) Option {
	return func(c *config) { setting.Between(settings, &c.err, &c.wait.Size, n, 0, MaxCapacity, "WithQueue") }
}

// WithMaxWait bounds the time a queued caller waits for a slot: after d it
// is refused with [ErrBulkheadFull]. The wait is timed by the bulkhead's
// clock ([WithClock]). The default, 0, sets no bound: a caller waits as
// long as its context lets it. A negative d is invalid, and so is a
// positive one without a queue (WithQueue), since nobody would wait.
func WithMaxWait(d time.Duration) Option {
	return func(c *config) { setting.NotNegative(settings, &c.err, &c.wait.MaxWait, d, "WithMaxWait") }
}

// WithClock sets the clock that times the maximum wait, such as a
// *clock.Mock in a test. The default is clock.New(), the time package's
// clock, which runs on virtual time inside a testing/synctest bubble. A
// nil c, typed or not, is invalid. The bulkhead calls c's Timer method only for a caller
// about to queue, before it queues, and never while it holds its lock: a
// Timer that blocks holds up that caller alone, and one that panics panics
// in that caller's Allow, which then holds neither a slot nor a place in
// the queue.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) { settings.Clock(&cfg.clock, &cfg.err, c) }
}

// checkCapacity reports what is wrong with a capacity given to New or
// NewPriority.
func checkCapacity(fn string, n int) error {
	if n <= 0 || n > MaxCapacity {
		return settings.Invalid("%s(%d): the capacity must be in [1, %d]", fn, n, MaxCapacity)
	}
	return nil
}
