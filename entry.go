package backoff

import "context"

// entry describes an entry point that takes its options per call, for the
// checks it makes before it runs anything.
type entry struct {
	name string
	// takesContext: the operation receives the attempt's context, so the
	// options that work through it apply.
	takesContext bool
	// live: the operation is never started once ctx is done (the rule of
	// Do and DoErr). The others run it at least once, as seed 003's
	// entry points promise, and then report the context's cause.
	live bool
}

var (
	retryEntry      = entry{name: "RetryCtx"}
	retryErrorEntry = entry{name: "RetryErrorCtx"}
	doEntry         = entry{name: "Do", takesContext: true, live: true}
	doErrEntry      = entry{name: "DoErr", takesContext: true, live: true}
)

// retryCall is the body of every entry point that takes its options per
// call: it checks what it was given, then runs fn under the stages the
// options make.
func retryCall[T any](ctx context.Context, e *entry, fn func(context.Context) (T, error), opts []RetryOption) (T, error) {
	t := typed[T]{fn: fn}
	o := getOptions(opts)
	if err := e.check(ctx, fn == nil, o); err != nil {
		o.release()
		return t.res, &Error{Cause: err}
	}
	rc, err := resultCheckFor[T](o.result)
	if err != nil {
		o.release()
		return t.res, &Error{Cause: err}
	}
	t.check = rc
	if e.live && ctx.Err() != nil {
		d := driver{o: o}
		err := d.giveUp(ctx, context.Cause(ctx), nil)
		o.release()
		return t.res, err
	}
	var buf [3]Stage
	err = t.run(ctx, o.stages(buf[:0]), o)
	return t.res, err
}

// check reports what makes the call impossible, or nil.
func (e *entry) check(ctx context.Context, fnNil bool, o *retryOptions) error {
	switch {
	case ctx == nil:
		return invalidf("%s was given a nil context", e.name)
	case fnNil:
		return invalidf("%s was given a nil operation", e.name)
	}
	if err := o.validate(); err != nil {
		return err
	}
	if name := o.contextOnly(); name != "" && !e.takesContext {
		return invalidf("%s works through the context the operation receives, which %s does not pass: use Do or DoErr", name, e.name)
	}
	return nil
}
