// Package bulkhead limits how many calls run at once, so that one slow
// dependency cannot take every goroutine, connection or file descriptor of
// a process with it.
//
// It offers two guards. A [Bulkhead] admits at most N calls at a time and
// can hold a bounded queue of callers waiting, in arrival order, for a
// slot. A [PriorityBulkhead] sheds calls by their [Priority] as it fills:
// with the default thresholds, low-priority calls may not take it past half
// of its capacity, standard ones past 80%, and critical calls may fill it,
// so that background work cannot starve the calls that matter.
//
// Both implement [guard.Guard], so they serve as a stage of a policy
// through policy.Guard (package github.com/herdsafe/backoff/policy),
// usually the outermost guard:
//
//	p := policy.New(
//		policy.Guard(bulkhead.New(20)),
//		policy.Retry(backoff.WithMaxTries(3)),
//	)
//
// Each also has a Run method for use on its own. A refusal matches
// [ErrBulkheadFull] with errors.Is, whichever guard made it; through Run,
// guard.Run or a policy it comes back wrapped in an error that matches
// [backoff.ErrRefused], and within a policy that error is the Cause of the
// *backoff.Error the call returns.
//
// The path of an admitted call, a slot free and nobody queued, takes no
// lock, allocates nothing and reads no clock: an atomic counter is all the
// state it touches. Neither guard starts a goroutine.
package bulkhead
