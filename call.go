package backoff

import "context"

// call is one call through the stages, with the typed parts of the entry
// points erased so that the stages are not generic: fn runs the caller's
// function and keeps its result, discard releases a result the driver
// rejected and will not return, fallback runs a typed fallback and keeps
// its result. The closures live on the caller's stack and refer to a typed
// there.
//
// Nothing that a call refers to may reach the heap or another goroutine:
// that would force the caller's function and result onto the heap, an
// allocation on every call. That is why no stage hands a continuation to
// code it does not know.
type call struct {
	fn       func(ctx context.Context) error
	discard  func() bool
	fallback func(f any, ctx context.Context, err error) error
	attempt  int  // the attempt the innermost retry stage running is making, from 1
	slept    bool // a retry stage waited on a timer
}

// typed holds the caller's function and its result.
type typed[T any] struct {
	fn       func(context.Context) (T, error)
	check    *resultCheck[T] // nil: every result is accepted
	res      T
	held     bool // res came with no error and was not discarded
	rejected bool // res was rejected by check and not yet discarded
}

// run runs stages around t's function and returns its error. It releases
// the options o, if they came from the pool, unless a retry stage waited.
func (t *typed[T]) run(ctx context.Context, stages []Stage, o *retryOptions) error {
	// The closures are made here, not in a function that returns them: the
	// caller's result must stay on its stack.
	c := call{
		attempt: 1,
		fn: func(ctx context.Context) error {
			v, err := t.fn(ctx)
			t.res = v
			if err != nil || t.check == nil {
				return err
			}
			t.held = true
			return t.judge(v)
		},
		discard:  t.discard,
		fallback: t.fallback,
	}
	var err error
	if t.check != nil && t.check.discard != nil {
		err = t.runHolding(ctx, stages, &c)
	} else {
		err = run(ctx, stages, &c)
	}
	if !c.slept {
		o.release()
	}
	return err
}

// runHolding is run for a call whose results hold resources: if a
// callback panics while the driver holds a result, the result is
// discarded before the panic goes on.
func (t *typed[T]) runHolding(ctx context.Context, stages []Stage, c *call) error {
	done := false
	defer func() {
		if !done && t.held {
			t.held, t.rejected = false, false
			t.check.discard(t.res)
		}
	}()
	err := run(ctx, stages, c)
	done = true
	return err
}

// judge applies the result check to a result that came with no error. If
// the check panics, the result is discarded before the panic goes on.
func (t *typed[T]) judge(v T) error {
	done := false
	defer func() {
		if !done && t.check.discard != nil {
			t.held = false
			t.check.discard(v)
		}
	}()
	err := t.check.check(v)
	done = true
	t.rejected = err != nil
	return err
}

// discard hands a rejected result to the check's discard function, and
// reports whether it did. The result is then gone: it is not returned.
func (t *typed[T]) discard() bool {
	if !t.rejected {
		return false
	}
	t.rejected, t.held = false, false
	v := t.res
	var zero T
	t.res = zero
	if t.check.discard == nil {
		return false
	}
	t.check.discard(v)
	return true
}

// fallback runs the fallback f, which fallbackFits has accepted, and keeps
// its result. The result it replaces is discarded.
func (t *typed[T]) fallback(f any, ctx context.Context, err error) error {
	t.discard()
	t.held = false
	switch g := f.(type) {
	case func(context.Context, error) (T, error):
		v, ferr := g(ctx, err)
		t.res = v
		return ferr
	case func(context.Context, error) error:
		var zero T
		t.res = zero
		return g(ctx, err)
	}
	return fallbackFits[T](f)
}

// oneAttempt are the options of a call that may make one attempt: what a
// Policy without a retry stage gives.
var oneAttempt = retryOptions{maxTries: 1}

// settle returns err as the *Error a call reports: err itself if it is
// one, else the one a retry stage allowed a single attempt would give for
// it. A guard's refusal becomes an *Error whose Cause is the guard's error.
func settle(ctx context.Context, err error, attempt int) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	m := findMarks(err)
	d := driver{o: &oneAttempt, attempt: attempt}
	_, cause := d.decide(ctx, err, m)
	if m.refused != nil {
		return &Error{Cause: cause, Attempts: attempt - 1, refused: true}
	}
	return &Error{Cause: cause, LastErr: m.lastErr(err), Attempts: attempt}
}
