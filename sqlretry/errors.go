package sqlretry

import (
	"errors"

	"github.com/herdsafe/backoff/internal/setting"
)

// settings makes the errors of the settings this package cannot use.
const settings = setting.Package("sqlretry")

var (
	// ErrCommitOutcomeUnknown is matched, with errors.Is, by the error of a
	// transaction whose COMMIT failed without an answer from the server
	// (the connection died, or the context ended, while COMMIT was in
	// flight): it may have committed. The runner does not run such a
	// transaction again unless it was declared [WithIdempotent]; find out
	// whether it committed (by a key it wrote) before doing it again.
	ErrCommitOutcomeUnknown = errors.New("sqlretry: the outcome of COMMIT is unknown: the transaction may have committed")

	// ErrAbortedTransaction is matched, with errors.Is, by the error of a
	// function that ran a statement in a transaction the server had
	// already aborted because an earlier statement failed. The function
	// went on after an error: it must return the first error instead, and
	// the runner runs the whole transaction again if that error is worth
	// it. It is never retried.
	ErrAbortedTransaction = errors.New("sqlretry: a statement ran in a transaction the server had already aborted; " +
		"the function must return the first error of a statement instead of going on (the runner retries the whole transaction, never a statement)")
)

// commitUnknown is the error of a COMMIT whose outcome is unknown.
type commitUnknown struct{ err error }

func (e *commitUnknown) Error() string        { return ErrCommitOutcomeUnknown.Error() + ": " + e.err.Error() }
func (e *commitUnknown) Unwrap() error        { return e.err }
func (e *commitUnknown) Is(target error) bool { return target == ErrCommitOutcomeUnknown }

// aborted is the error of a statement refused because its transaction had
// already failed.
type aborted struct{ err error }

func (e *aborted) Error() string        { return ErrAbortedTransaction.Error() + ": " + e.err.Error() }
func (e *aborted) Unwrap() error        { return e.err }
func (e *aborted) Is(target error) bool { return target == ErrAbortedTransaction }
