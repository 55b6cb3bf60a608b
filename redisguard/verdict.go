package redisguard

import "github.com/herdsafe/backoff/guard"

// verdict is what a recorded call says about the dependency.
type verdict uint8

const (
	neutral verdict = iota // abandoned, refused inside, or an error that does not count
	success
	failure
)

// judge returns how a guard counts a call that ended with o: neutral when
// the caller abandoned it or a guard inside refused it (the dependency did
// not answer), success when it succeeded, and for an error what isFailure
// says: failure, or otherwise (every error is a failure without
// isFailure). If isFailure panics, record is called with onPanic before
// the panic goes on, so that the call is counted all the same.
func judge(o guard.Outcome, isFailure func(error) bool, otherwise, onPanic verdict, record func(verdict)) verdict {
	switch {
	case o.Abandoned || (o.Err != nil && guard.IsRefusal(o.Err)):
		return neutral
	case o.Err == nil:
		return success
	case isFailure == nil:
		return failure
	}
	done := false
	defer func() {
		if !done {
			record(onPanic)
		}
	}()
	v := otherwise
	if isFailure(o.Err) {
		v = failure
	}
	done = true
	return v
}
