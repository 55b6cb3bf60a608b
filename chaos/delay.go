package chaos

import "context"

// delay waits LatencyDuration on the Injector's clock, or until ctx is
// done; then it returns the context's cause, and the timer is stopped. A
// context already done starts no timer.
func (in *Injector) delay(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if in.cfg.LatencyDuration == 0 {
		return nil
	}
	t := in.cfg.Clock.Timer(in.cfg.LatencyDuration)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return context.Cause(ctx)
	}
}
