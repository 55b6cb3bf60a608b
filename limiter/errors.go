package limiter

import (
	"fmt"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/internal/sentinel"
	"github.com/herdsafe/backoff/internal/setting"
)

// ErrLimitExceeded is matched, with errors.Is, by every refusal of a
// [Limiter]: the limit reached and no room in the queue, a queued caller's
// maximum wait reached, or a call shed by its priority ([ShedError]). A
// caller whose context ended first gets the context's error instead, which
// does not match ErrLimitExceeded.
//
// It names itself for telemetry: error.type "limiter.ErrLimitExceeded",
// retry.cause "limit_exceeded".
var ErrLimitExceeded error = sentinel.New("limiter: concurrency limit reached", "limiter.ErrLimitExceeded", causeExceeded)

// causeExceeded is the retry cause of a refusal.
const causeExceeded = "limit_exceeded"

// ShedError is the refusal of a call shed by its priority (see
// WithPriorityThresholds): admitting it would have taken the calls in
// flight past the share of the limit its priority may use. It matches
// [ErrLimitExceeded] with errors.Is; read it with errors.As.
type ShedError struct {
	// Priority is the priority of the call refused.
	Priority bulkhead.Priority
	// Threshold is the fraction of the limit, in (0, 1], that a call of
	// that priority may not take the calls in flight past.
	Threshold float64
}

// Error says which priority was shed, and at what share of the limit.
func (e ShedError) Error() string {
	if e.Threshold >= 1 {
		return fmt.Sprintf("limiter: concurrency limit reached: %s call refused", e.Priority)
	}
	return fmt.Sprintf("limiter: %s call shed above %g%% of the concurrency limit", e.Priority, e.Threshold*100)
}

// Is reports whether target is ErrLimitExceeded.
func (e ShedError) Is(target error) bool { return target == ErrLimitExceeded }

// RetryCause returns "limit_exceeded", the retry cause of
// [ErrLimitExceeded], which the refusal matches through its Is method
// rather than by wrapping it: the name a retry that gave up on this
// refusal is reported under.
func (e ShedError) RetryCause() string { return causeExceeded }

// settings makes the errors of the settings a Limiter cannot use.
const settings = setting.Package("limiter")

var (
	errNilContext = settings.NilContext()              // of Allow given a nil context
	errZero       = settings.NotMade("Limiter", "New") // of a Limiter New did not make
)

// errUnbalanced is the panic of a Record with no call in flight.
const errUnbalanced = "limiter: Record without a call in flight (Record called twice, or without Allow)"
