package backoff

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// The driver's readings of its clock. A run reads the clock when it
// starts only if WithMaxElapsedTime needs it; otherwise its clock starts at
// the first failure, so that a call that succeeds at once reads no clock.

// epoch is the origin of the driver's readings of its clock. Since reads
// only the monotonic clock of the time package, which costs half of
// time.Now; on a mock clock the readings are negative, and their
// differences are all that matters.
var epoch = time.Now()

// now reads the driver's clock, as a duration since epoch, once per
// moment: the reading is kept until forget, so that a decision (the time
// budgets, the report, the *Error) costs one reading, which on some
// machines costs more than the rest of the decision.
func (d *driver) now() time.Duration {
	if !d.read {
		d.at, d.read = d.readClock(), true
	}
	return d.at
}

// forget drops the kept reading: time has passed (an attempt, a wait).
func (d *driver) forget() { d.read = false }

func (d *driver) readClock() time.Duration {
	if c := d.o.clock; c != nil {
		return c.Since(epoch)
	}
	return time.Since(epoch)
}

// begin starts the run's clock.
func (d *driver) begin() {
	d.started = true
	d.start = d.now()
}

// markFailure notes the time of the first failure, and starts the run's
// clock then if nothing started it before.
func (d *driver) markFailure() {
	d.forget() // the attempt took time
	if d.failed {
		return
	}
	d.failed = true
	if !d.started {
		d.begin()
	}
	if d.o.maxRetryTime > 0 {
		d.failedAt = d.now()
	}
}

// until returns the time left before t on the driver's clock, so that a
// deadline set on a mock clock (clock.Mock.WithTimeout) is read on it.
func (d *driver) until(t time.Time) time.Duration {
	if c := d.o.clock; c != nil {
		return c.Until(t)
	}
	return time.Until(t)
}

// elapsed returns the time since the run's clock started, or 0 before.
func (d *driver) elapsed() time.Duration {
	if !d.started {
		return 0
	}
	return d.now() - d.start
}

// wait is the one place that waits: for delay, or until ctx is done, and
// it returns the context's cause if it is. A zero wait, or one under
// WithTestingBypass, creates no timer and does not park.
func (d *driver) wait(ctx context.Context, delay time.Duration) error {
	if delay > 0 && ctx.Err() == nil && !d.bypassed(ctx) {
		d.slept = true
		if clk := d.o.clock; clk != nil {
			sleepOn(clk, ctx, delay)
		} else {
			sleep(ctx, delay)
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// sleep waits for d or until ctx is done, on the time package. It and
// sleepOn are kept small: a goroutine parked here holds their frames.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
}

// sleepOn is sleep on the clock c.
func sleepOn(c clock.Clock, ctx context.Context, d time.Duration) {
	t := c.Timer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
}

// bypassed reports whether ctx skips waits (WithTestingBypass), looking it
// up once per run.
func (d *driver) bypassed(ctx context.Context) bool {
	if d.bypass == 0 {
		d.bypass = -1
		if bypassed(ctx) {
			d.bypass = 1
		}
	}
	return d.bypass > 0
}
