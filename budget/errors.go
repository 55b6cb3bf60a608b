package budget

import (
	"github.com/herdsafe/backoff/internal/sentinel"
	"github.com/herdsafe/backoff/internal/setting"
)

// ErrBudgetExhausted is the error of a retry that a Budget refused.
// Through guard.Run or a policy it comes back wrapped in an error that
// matches backoff.ErrRefused; inside a policy that error is the Cause of
// the retry stage it stops, and the *backoff.Error's LastErr keeps the
// error of the last attempt that ran: match it with errors.Is.
//
// It names itself for telemetry: error.type "budget.ErrBudgetExhausted",
// retry.cause "budget_exhausted".
var ErrBudgetExhausted error = sentinel.New("budget: retry budget exhausted", "budget.ErrBudgetExhausted", "budget_exhausted")

// settings makes the errors of the settings a Budget cannot use.
const settings = setting.Package("budget")

var (
	errNilContext = settings.NilContext()                                    // of Allow given a nil context
	errZero       = settings.NotMade("Budget", "NewTokenBucket or NewRatio") // of a Budget no constructor made
)
