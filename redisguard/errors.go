package redisguard

import (
	"context"
	"errors"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
)

// settings makes the errors of the settings a guard of this package cannot
// use.
const settings = setting.Package("redisguard")

var (
	errNilContext = settings.NilContext()                                               // of Allow given a nil context
	errZero       = settings.NotMade("guard", "NewTokenBucket, NewRatio or NewBreaker") // of a guard no constructor made
)

// errCounted is the error the guards hand their local fallback for a call
// they judged a failure: the fallback, whose classifier they took (see
// package internal/fleet), counts every error as one, so that a classifier
// of the caller's runs once per call, in this package.
var errCounted = errors.New("redisguard: a failure")

// admissible returns what both guards' Allow refuses every call with
// before anything else: a nil ctx's error, or g's configuration error.
func admissible(ctx context.Context, g guard.Validator) error {
	if ctx == nil {
		return errNilContext
	}
	return g.Validate()
}
