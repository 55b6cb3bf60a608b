package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// spent is the sentinel error of allowance, a guard this package has never
// heard of: it names itself as the repository's guards' sentinels do.
type spent struct{}

func (*spent) Error() string      { return "quota: spent" }
func (*spent) ErrorType() string  { return "quota.ErrSpent" }
func (*spent) RetryCause() string { return "quota_spent" }

var errSpent error = &spent{}

// spentFor is allowance's refusal of one caller: it matches errSpent through
// its Is method, as breaker.OpenError matches breaker.ErrCircuitOpen, and
// so says the cause itself.
type spentFor struct{ caller string }

func (e *spentFor) Error() string        { return "quota: spent for " + e.caller }
func (e *spentFor) Is(target error) bool { return target == errSpent }
func (e *spentFor) RetryCause() string   { return "quota_spent" }

// allowance admits calls while it has some left, then refuses with errSpent.
type allowance struct{ left int }

func (q *allowance) Allow(context.Context, guard.Call) (guard.Permit, error) {
	if q.left == 0 {
		return guard.Permit{}, errSpent
	}
	q.left--
	return guard.Permit{}, nil
}

func (*allowance) Record(guard.Permit, guard.Outcome) {}

// A guard's error that names itself is reported under its names, by this
// package which does not know the guard: its type wherever it is what the
// error is, its cause whenever a retry gives up on it, in the place of the
// causes the repository's guards have.
func TestAGuardOfYourOwnIsNamed(t *testing.T) {
	opErr := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		name        string
		err         error
		typ, reason string
	}{
		{"sentinel", errSpent, "quota.ErrSpent", "quota_spent"},
		{"refused", refusal(errSpent), "quota.ErrSpent", "quota_spent"},
		{"wrapped", fmt.Errorf("call: %w", refusal(errSpent)), "quota.ErrSpent", "quota_spent"},
		{"matched_by_is", &spentFor{"api"}, "*telemetry.spentFor", "quota_spent"},
		{"matched_by_is_refused", refusal(&spentFor{"api"}), "*telemetry.spentFor", "quota_spent"},
		// The core's causes come first, the context's after the guard's.
		{"retries_canceled_first", fmt.Errorf("%w: %w", backoff.ErrRetriesCanceled, errSpent), "quota.ErrSpent", causeRetriesCanceled},
		{"before_the_context", errors.Join(context.Canceled, errSpent), "*errors.joinError", "quota_spent"},
		// An inner retry stage that the guard stopped is named by the
		// last real error, and its cause by the guard, as a breaker's is.
		{"inner_retry_stopped", &backoff.Error{Cause: refusal(errSpent), LastErr: opErr}, "*net.OpError", "quota_spent"},
		{"inner_retry_stopped_by_a_breaker", &backoff.Error{Cause: refusal(breaker.ErrCircuitOpen), LastErr: opErr}, "*net.OpError", causeCircuitOpen},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ErrorType(c.err); got != c.typ {
				t.Errorf("ErrorType(%v) = %q, want %q", c.err, got, c.typ)
			}
			if got := (Namer{}).Cause(c.err); got != c.reason {
				t.Errorf("Cause(%v) = %q, want %q", c.err, got, c.reason)
			}
		})
	}
}

// Through a Policy, the attempt the guard refuses is named by the guard's
// error, the give-up by the guard's cause, and the Policy's error by the
// last error the operation returned.
func TestAGuardOfYourOwnInAPolicy(t *testing.T) {
	opErr := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	var types, causes []string
	in := recordNames{types: &types, causes: &causes}
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithInstrumenter(in)),
		policy.Guard(&allowance{left: 1}),
	)
	_, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { return 0, opErr })
	if !errors.Is(err, errSpent) {
		t.Fatalf("Do = %v, want the allowance's refusal", err)
	}
	if want := []string{"*net.OpError", "quota.ErrSpent"}; fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("attempts' error types %v, want %v", types, want)
	}
	if want := []string{"quota_spent"}; fmt.Sprint(causes) != fmt.Sprint(want) {
		t.Errorf("give-up causes %v, want %v", causes, want)
	}
	if got := ErrorType(err); got != "*net.OpError" {
		t.Errorf("ErrorType of the Policy's error = %q, want the last error's, %q", got, "*net.OpError")
	}
}

// A cause a guard names is a label value: bytes that are not UTF-8 are
// replaced, as those of a user's type names are.
func TestAGuardsCauseIsALabelValue(t *testing.T) {
	if got := (Namer{}).Cause(badCause{}); got != "spent\uFFFD" {
		t.Errorf("Cause = %q, want the invalid byte replaced", got)
	}
}

type badCause struct{}

func (badCause) Error() string      { return "bad" }
func (badCause) RetryCause() string { return "spent\xff" }

// recordNames is a backoff.Instrumenter that names each attempt's error
// and each give-up's cause.
type recordNames struct{ types, causes *[]string }

func (recordNames) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }

func (r recordNames) AfterAttempt(_ context.Context, s backoff.State) {
	if OutcomeOf(s) != NoAttempt && s.Err != nil {
		*r.types = append(*r.types, ErrorType(s.Err))
	}
	if s.GivingUp {
		*r.causes = append(*r.causes, Namer{}.Cause(s.Cause))
	}
}
