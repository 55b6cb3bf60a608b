package telemetry

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// The name of an unnamed operation is a label value that dashboards
// query: it does not change.
func TestUnnamed(t *testing.T) {
	if Unnamed != "unnamed" {
		t.Errorf("Unnamed = %q, want %q", Unnamed, "unnamed")
	}
}

// refuser is a guard of the test's that refuses every call with err.
type refuser struct{ err error }

func (r refuser) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, r.err
}
func (refuser) Record(guard.Permit, guard.Outcome) {}

// refusal returns the error of a call that a guard refused with err, as
// guard.Run (and so a guard stage) returns it.
func refusal(err error) error {
	return guard.Run(context.Background(), refuser{err}, guard.Call{Attempt: 1}, func(context.Context) error { return nil })
}

// The user's function names first; its "" falls back to the rule.
func TestNamerType(t *testing.T) {
	errMine := errors.New("mine")
	n := Namer{ErrorType: func(err error) string {
		if errors.Is(err, errMine) {
			return "mine"
		}
		return ""
	}}
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("wrapped: %w", errMine), "mine"},
		{&unavailable{}, "*telemetry.unavailable"},
		{nil, ""},
	}
	for _, c := range cases {
		if got := n.Type(c.err); got != c.want {
			t.Errorf("Type(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if got := (Namer{}).Type(errMine); got != "*errors.errorString" {
		t.Errorf("the zero Namer's Type = %q, want the rule's", got)
	}
}

func TestCauseName(t *testing.T) {
	custom := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(custom)
	cases := []struct {
		cause error
		want  string
	}{
		{backoff.ErrPermanent, causePermanent},
		{backoff.ErrExhausted, causeExhausted},
		{backoff.ErrMaxElapsedTime, causeMaxElapsedTime},
		{backoff.ErrRetriesCanceled, causeRetriesCanceled},
		{fmt.Errorf("%w: WithMaxTries", backoff.ErrInvalidConfiguration), causeInvalidConfig},
		{context.Canceled, causeCanceled},
		{context.DeadlineExceeded, causeDeadline},
		{fmt.Errorf("%w: %w", backoff.ErrRetriesCanceled, &unavailable{}), causeRetriesCanceled},
		{&breaker.OpenError{}, causeCircuitOpen},
		{bulkhead.ShedError{}, causeBulkheadFull},
		{budget.ErrBudgetExhausted, causeBudgetExhausted},
		{throttle.ErrThrottled, causeThrottled},
		{limiter.ShedError{}, causeLimitExceeded},
		// A guard's refusal wraps the guard's error, which names it.
		{refusal(&breaker.OpenError{}), causeCircuitOpen},
		{refusal(bulkhead.ShedError{}), causeBulkheadFull},
		{refusal(budget.ErrBudgetExhausted), causeBudgetExhausted},
		{refusal(throttle.ErrThrottled), causeThrottled},
		{refusal(limiter.ErrLimitExceeded), causeLimitExceeded},
		{refusal(context.DeadlineExceeded), causeDeadline},
		// The refusal of a guard the rules do not know.
		{refusal(&unavailable{}), causeRefused},
		{fmt.Errorf("%w: the pool is draining", backoff.ErrRefused), causeRefused},
		{context.Cause(ctx), "*errors.errorString"},
		{&unavailable{}, "*telemetry.unavailable"},
		{nil, "unknown"},
	}
	for _, c := range cases {
		if got := (Namer{}).Cause(c.cause); got != c.want {
			t.Errorf("Cause(%v) = %q, want %q", c.cause, got, c.want)
		}
	}
	mapped := func(error) string { return "mine" }
	if got := (Namer{ErrorType: mapped}).Cause(&unavailable{}); got != "mine" {
		t.Errorf("Cause with a mapping = %q, want the mapping's %q", got, "mine")
	}
}

// What a guard stage returns for a refusal is what the driver reports as
// the Cause: the cause of a refused retry is named by the guard.
func TestCauseOfARefusedRetry(t *testing.T) {
	var got []string
	in := causeNames{names: &got}
	_ = backoff.DoErr(context.Background(), func(context.Context) error {
		return refusal(&breaker.OpenError{})
	}, backoff.WithInstrumenter(in))
	_ = backoff.DoErr(context.Background(), func(context.Context) error {
		return refusal(&unavailable{})
	}, backoff.WithInstrumenter(in))
	if want := []string{causeCircuitOpen, causeRefused}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("causes %v, want %v", got, want)
	}
}

// causeNames is a backoff.Instrumenter that names the cause of each give-up.
type causeNames struct{ names *[]string }

func (causeNames) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }

func (c causeNames) AfterAttempt(_ context.Context, s backoff.State) {
	if s.GivingUp {
		*c.names = append(*c.names, Namer{}.Cause(s.Cause))
	}
}
