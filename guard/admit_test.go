package guard_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// Admit asks the guard as Run does before it calls its function: the Call
// given, the Permit of Allow handed back, nothing recorded.
func TestAdmitAdmits(t *testing.T) {
	g := &recorder{}
	p, err := guard.Admit(context.Background(), g, guard.Call{Attempt: 3})
	if err != nil || p.Token != 1 {
		t.Fatalf("Admit returned (%+v, %v), want the Permit of Allow", p, err)
	}
	if len(g.calls) != 1 || g.calls[0].Attempt != 3 || len(g.outcomes) != 0 {
		t.Errorf("the guard was asked %+v and told %+v, want the Call given and nothing recorded", g.calls, g.outcomes)
	}
}

// Admit's errors are Run's, for each way a call is not made: a refusal, a
// failure Allow injects, a context already done (the guard not asked), a
// nil context or guard.
func TestAdmitErrorsAreRuns(t *testing.T) {
	injected := errors.New("injected")
	done, cancel := context.WithCancelCause(context.Background())
	cancel(io.ErrClosedPipe)
	var typedNil *recorder
	for _, c := range []struct {
		name  string
		ctx   context.Context
		g     guard.Guard
		check func(error) bool
	}{
		{"a refusal", context.Background(), refuser(errReason), func(err error) bool {
			return errors.Is(err, backoff.ErrRefused) && errors.Is(err, errReason) && err.Error() == errReason.Error()
		}},
		{"an injected failure", context.Background(), refuser(guard.Failure(injected)), func(err error) bool { return err == injected }},
		{"a context already done", done, refuser(injected), func(err error) bool {
			return errors.Is(err, backoff.ErrRefused) && errors.Is(err, io.ErrClosedPipe)
		}},
		{"a nil context", nil, &recorder{}, func(err error) bool {
			return errors.Is(err, backoff.ErrInvalidConfiguration) && strings.Contains(err.Error(), "guard.Admit was given a nil context")
		}},
		{"a typed nil guard", context.Background(), typedNil, func(err error) bool {
			return errors.Is(err, backoff.ErrInvalidConfiguration) && strings.Contains(err.Error(), "guard.Admit was given a nil Guard")
		}},
	} {
		_, err := guard.Admit(c.ctx, c.g, guard.Call{Attempt: 1})
		if !c.check(err) {
			t.Errorf("%s: Admit returned %v", c.name, err)
		}
		if c.ctx != nil && c.g != guard.Guard(typedNil) {
			runErr := guard.Run(c.ctx, c.g, guard.Call{Attempt: 1}, func(context.Context) error { return nil })
			if runErr.Error() != err.Error() || errors.Is(runErr, backoff.ErrRefused) != errors.Is(err, backoff.ErrRefused) {
				t.Errorf("%s: Admit returned %v, Run %v; want the same", c.name, err, runErr)
			}
		}
	}
	// With its context done, the guard is not asked.
	g := &recorder{}
	if _, err := guard.Admit(done, g, guard.Call{Attempt: 1}); err == nil || len(g.calls) != 0 {
		t.Errorf("a context already done: Admit returned %v after asking %+v, want a refusal without asking", err, g.calls)
	}
}
