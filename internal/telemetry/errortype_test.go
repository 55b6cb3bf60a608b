package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/throttle"
)

type unavailable struct{}

func (*unavailable) Error() string { return "unavailable" }

func TestErrorType(t *testing.T) {
	opErr := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"errors.New", errors.New("x"), "*errors.errorString"},
		{"pointer_type", &unavailable{}, "*telemetry.unavailable"},
		{"value_type", syscall.ECONNREFUSED, "syscall.Errno"},
		{"value_type_of_a_module", bulkhead.ShedError{}, "github.com/herdsafe/backoff/bulkhead.ShedError"},
		{"fmt_wrapped", fmt.Errorf("dialing: %w", opErr), "*net.OpError"},
		{"fmt_wrapped_twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", opErr)), "*net.OpError"},
		{"fmt_two_verbs", fmt.Errorf("%w, %w", opErr, io.EOF), "*fmt.wrapErrors"},
		{"join", errors.Join(opErr, io.EOF), "*errors.joinError"},
		{"permanent", backoff.Permanent(opErr), "*net.OpError"},
		{"permanent_wrapped", fmt.Errorf("building: %w", backoff.Permanent(opErr)), "*net.OpError"},
		{"retry_after", backoff.RetryAfter(time.Second, opErr), "*net.OpError"},
		{"retry_after_no_cause", backoff.RetryAfter(time.Second, nil), "*backoff.RetryAfterError"},
		{"inner_retry", &backoff.Error{LastErr: opErr, Cause: backoff.ErrExhausted}, "*net.OpError"},
		{"inner_retry_refused", &backoff.Error{Cause: &breaker.OpenError{}}, "*breaker.OpenError"},
		{"inner_retry_empty", &backoff.Error{}, "*backoff.Error"},
		{"panic_kept", &policy.PanicError{Value: io.EOF}, "*policy.PanicError"},
		{"guard_refusal", refusal(opErr), "*net.OpError"},
		{"guard_refusal_of_a_sentinel", refusal(breaker.ErrCircuitOpen), "breaker.ErrCircuitOpen"},
		{"guard_refusal_wrapped", fmt.Errorf("stage: %w", refusal(&breaker.OpenError{})), "*breaker.OpenError"},
		{"refused_with_a_reason", fmt.Errorf("%w: %w", backoff.ErrRefused, opErr), "*net.OpError"},
		{"retries_canceled_with_a_reason", fmt.Errorf("%w: %w", backoff.ErrRetriesCanceled, opErr), "*net.OpError"},
		{"retries_canceled_joined", errors.Join(backoff.ErrRetriesCanceled, opErr), "*net.OpError"},
		{"permanent_with_a_reason", fmt.Errorf("%w: %w", opErr, backoff.ErrPermanent), "*net.OpError"},
		{"marks_only", fmt.Errorf("%w%w", backoff.ErrRefused, backoff.ErrPermanent), "*fmt.wrapErrors"},
		{"mark_and_two_reasons", fmt.Errorf("%w: %w, %w", backoff.ErrRetriesCanceled, opErr, io.EOF), "*fmt.wrapErrors"},
		{"refused", backoff.ErrRefused, "backoff.ErrRefused"},
		{"retries_canceled", fmt.Errorf("%w: quota spent", backoff.ErrRetriesCanceled), "backoff.ErrRetriesCanceled"},
		{"permanent_sentinel", backoff.ErrPermanent, "backoff.ErrPermanent"},
		{"canceled", context.Canceled, "context.Canceled"},
		{"deadline_wrapped", fmt.Errorf("read: %w", context.DeadlineExceeded), "context.DeadlineExceeded"},
		{"eof", io.EOF, "io.EOF"},
		{"unexpected_eof", io.ErrUnexpectedEOF, "io.ErrUnexpectedEOF"},
		{"circuit_open", breaker.ErrCircuitOpen, "breaker.ErrCircuitOpen"},
		{"bulkhead_full_wrapped", fmt.Errorf("%w, and so is its queue", bulkhead.ErrBulkheadFull), "bulkhead.ErrBulkheadFull"},
		{"budget", budget.ErrBudgetExhausted, "budget.ErrBudgetExhausted"},
		{"throttled", throttle.ErrThrottled, "throttle.ErrThrottled"},
		{"limit_exceeded_wrapped", fmt.Errorf("%w, and so is its queue", limiter.ErrLimitExceeded), "limiter.ErrLimitExceeded"},
		{"error_type_method", telemetrytest.SelfNamed("db.timeout"), "db.timeout"},
		{"error_type_method_wrapped", backoff.Permanent(fmt.Errorf("q: %w", telemetrytest.SelfNamed("db.timeout"))), "db.timeout"},
		{"error_type_method_empty", telemetrytest.SelfNamed(""), "github.com/herdsafe/backoff/internal/testkit/telemetrytest.SelfNamed"},
		{"uncomparable", telemetrytest.Uncomparable{io.EOF}, "github.com/herdsafe/backoff/internal/testkit/telemetrytest.Uncomparable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ErrorType(c.err); got != c.want {
				t.Errorf("ErrorType(%v) = %q, want %q", c.err, got, c.want)
			}
		})
	}
}

// lastErr is a backoff.Instrumenter that keeps the error of the last
// attempt it was told of.
type lastErr struct{ err *error }

func (lastErr) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }
func (l lastErr) AfterAttempt(_ context.Context, s backoff.State)                  { *l.err = s.Err }

// Do refuses an attempt once its context is done, with an error that
// matches backoff.ErrRefused and wraps the context's cause: it is named
// by the cause, never by the type of the core's own.
func TestErrorTypeOfAnAttemptRefusedByTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var err error
	_ = backoff.DoErr(ctx, func(context.Context) error { return nil }, backoff.WithInstrumenter(lastErr{&err}))
	if !errors.Is(err, backoff.ErrRefused) {
		t.Fatalf("the attempt's error %v does not match ErrRefused", err)
	}
	if got := ErrorType(err); got != "context.Canceled" {
		t.Errorf("ErrorType = %q, want %q", got, "context.Canceled")
	}
}

// The causes the repository's guards name for themselves (RetryCause):
// the values of the retry.cause attribute and the cause label that the
// tests expect of their refusals.
const (
	causeCircuitOpen     = "circuit_open"
	causeBulkheadFull    = "bulkhead_full"
	causeBudgetExhausted = "budget_exhausted"
	causeThrottled       = "throttled"
	causeLimitExceeded   = "limit_exceeded"
)
