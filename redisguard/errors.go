package redisguard

import (
	"errors"
	"fmt"

	"github.com/herdsafe/backoff"
)

// invalid returns an error that matches backoff.ErrInvalidConfiguration
// and names the setting that is wrong.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: redisguard: %s", backoff.ErrInvalidConfiguration, fmt.Sprintf(format, args...))
}

var (
	errNilContext = invalid("Allow was given a nil context")
	errRunCtx     = invalid("Run was given a nil context")
	errNilFunc    = invalid("Run was given a nil function")
	errZero       = invalid("a zero or nil guard; make one with NewTokenBucket or NewBreaker")
)

// errCounted is the error the guards hand their local fallback for a call
// they judged a failure: the fallback is made to count exactly it, so that
// a classifier of the caller's runs once per call, in this package.
var errCounted = errors.New("redisguard: a failure")

// isCounted is the classifier of the local fallbacks.
func isCounted(err error) bool { return err == errCounted }
