package backoff

import "context"

type bypassKey struct{}

// WithTestingBypass returns a context under which the driver and Loop skip
// every wait, so that an application's own tests can run its retry paths in
// microseconds. It touches no global state, so it is safe with t.Parallel.
//
// Under the bypass the attempts, the classifier, Notify, instrumentation
// and WithMaxTries behave as usual, and Notify and State still report the
// wait that was computed; a skipped wait takes no time, so it counts as zero
// against WithMaxElapsedTime and the context's deadline.
func WithTestingBypass(ctx context.Context) context.Context {
	return context.WithValue(ctx, bypassKey{}, true)
}

// bypassed reports whether ctx was made by WithTestingBypass.
func bypassed(ctx context.Context) bool {
	v, _ := ctx.Value(bypassKey{}).(bool)
	return v
}
