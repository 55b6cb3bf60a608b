package bulkhead

import (
	"fmt"

	"github.com/herdsafe/backoff/internal/sentinel"
	"github.com/herdsafe/backoff/internal/setting"
)

// ErrBulkheadFull is matched, with errors.Is, by every refusal of a
// [Bulkhead] or a [PriorityBulkhead]: all slots taken and no room in the
// queue, a queued caller's maximum wait reached, or a call shed by its
// priority ([ShedError]). A caller whose context ended first gets the
// context's error instead, which does not match ErrBulkheadFull.
//
// It names itself for telemetry: error.type "bulkhead.ErrBulkheadFull",
// retry.cause "bulkhead_full".
var ErrBulkheadFull error = sentinel.New("bulkhead: full", "bulkhead.ErrBulkheadFull", causeFull)

// causeFull is the retry cause of a refusal.
const causeFull = "bulkhead_full"

// ShedError is the refusal of a [PriorityBulkhead]: admitting the call
// would have taken the bulkhead past the threshold of its priority. It
// matches [ErrBulkheadFull] with errors.Is; read it with errors.As:
//
//	var shed bulkhead.ShedError
//	if errors.As(err, &shed) && shed.Priority == bulkhead.Low {
//		// try again later
//	}
type ShedError struct {
	// Priority is the priority of the call refused.
	Priority Priority
	// Threshold is the fraction of the capacity, in (0, 1], that a call
	// of that priority may not take the bulkhead's utilisation past.
	Threshold float64
}

// Error says which priority was shed, and at what utilisation.
func (e ShedError) Error() string {
	if e.Threshold >= 1 {
		return fmt.Sprintf("bulkhead: full: %s call refused at capacity", e.Priority)
	}
	return fmt.Sprintf("bulkhead: %s call shed above %g%% of capacity", e.Priority, e.Threshold*100)
}

// Is reports whether target is ErrBulkheadFull.
func (e ShedError) Is(target error) bool { return target == ErrBulkheadFull }

// RetryCause returns "bulkhead_full", the retry cause of [ErrBulkheadFull],
// which the refusal matches through its Is method rather than by wrapping
// it: the name a retry that gave up on this refusal is reported under.
func (e ShedError) RetryCause() string { return causeFull }

// settings makes the errors of the settings a bulkhead cannot use.
const settings = setting.Package("bulkhead")

var (
	// errNilContext is the error of Allow given a nil context.
	errNilContext = settings.NilContext()
	// errZeroValue is the error of a Bulkhead or PriorityBulkhead that
	// was not made by its constructor.
	errZeroValue = settings.NotMade("Bulkhead or PriorityBulkhead", "New or NewPriority")
)

// errUnbalanced is the panic of a Record with no call in flight.
const errUnbalanced = "bulkhead: Record without a call in flight (Record called twice, or without Allow)"
