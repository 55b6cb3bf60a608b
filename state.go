package backoff

import "context"

// WithAttemptState makes the context each attempt receives carry the
// attempt's State, which the operation reads with AttemptFrom: the attempt
// number, the budgets, the previous attempt's error, the wait before this
// attempt and the time elapsed. It lets an operation change what it does
// from one attempt to the next (rotate to another endpoint, shrink a
// batch) without a closure that captures mutable variables.
//
// It costs one allocation per attempt, which is why it is an option. Only
// the entry points whose operation takes a context (Do, DoErr, a retry
// stage) can apply it; Retry, RetryCtx, RetryError and RetryErrorCtx report
// it as ErrInvalidConfiguration.
func WithAttemptState() RetryOption {
	return func(o *retryOptions) {
		if !o.attemptState {
			o.attemptState = true
			o.instrumenters = append(o.instrumenters, attemptState{})
		}
	}
}

// AttemptFrom returns the State of the attempt that ctx was made for, as
// BeforeAttempt sees it, and true; or false if ctx carries none because the
// retry stage running it was not given WithAttemptState (or none runs it).
// Within a Policy it is the State of the innermost retry stage that carries
// one.
func AttemptFrom(ctx context.Context) (State, bool) {
	s, ok := ctx.Value(stateKey{}).(*State)
	if !ok {
		return State{}, false
	}
	return *s, true
}

type stateKey struct{}

// attemptState is the Instrumenter behind WithAttemptState.
type attemptState struct{}

func (attemptState) BeforeAttempt(ctx context.Context, s State) context.Context {
	return &stateContext{Context: ctx, s: s}
}

// stateContext is a context carrying an attempt's State: one allocation.
type stateContext struct {
	context.Context
	s State
}

func (c *stateContext) Value(key any) any {
	if key == (stateKey{}) {
		return &c.s
	}
	return c.Context.Value(key)
}

func (attemptState) AfterAttempt(context.Context, State) {}
