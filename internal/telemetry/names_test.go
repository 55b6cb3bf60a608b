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
	"github.com/herdsafe/backoff/throttle"
)

func TestName(t *testing.T) {
	if got := Name(backoff.State{Name: "fetch"}); got != "fetch" {
		t.Errorf("Name of fetch = %q", got)
	}
	if got := Name(backoff.State{}); got != Unnamed || Unnamed != "unnamed" {
		t.Errorf("Name of an unnamed operation = %q, want %q", got, "unnamed")
	}
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
		{&breaker.OpenError{}, causeCircuitOpen},
		{bulkhead.ShedError{}, causeBulkheadFull},
		{budget.ErrBudgetExhausted, causeBudgetExhausted},
		{throttle.ErrThrottled, causeThrottled},
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
