// Package fleet is what the fleet-wide guards of module redisguard learn
// of the local guards they are made of: the settings that breaker.New,
// budget.NewTokenBucket and budget.NewRatio made of their options, which a fleet-wide guard
// keeps in Redis for the whole fleet, and the classifier and hook it runs
// itself. A fleet-wide guard thus takes the options of package breaker or
// budget, validated by the local guard that is also its fallback, and
// copies none of them.
//
// Packages breaker and budget hand them over where redisguard asks for its
// fallback: breaker.NewFleetFallback, budget.NewTokenBucketFallback and
// budget.NewRatioFallback. Package fleet holds the settings' types only, and
// imports nothing of the module.
package fleet

import (
	"time"

	"github.com/benbjohnson/clock"
)

// The trip rules of a Breaker.
const (
	Consecutive  = iota // failures in a row (WithConsecutiveFailures)
	RateOfCalls         // the failure rate of the last calls (WithFailureRate)
	RateOverTime        // the failure rate of the last period (WithFailureRateOver)
)

// Breaker is what a fleet-wide breaker takes of a breaker.New.
type Breaker struct {
	Rule      int           // Consecutive, RateOfCalls or RateOverTime
	Threshold int           // Consecutive: failures in a row that trip it
	Rate      float64       // the rate rules: the failure rate that trips it
	MinCalls  int           // the rate rules: the calls the window needs first
	Calls     int           // RateOfCalls: the window's size
	Period    time.Duration // RateOverTime: the window's length
	// SlowAfter and SlowRate are WithSlowCalls' duration and rate: a call
	// slower than SlowAfter is slow, and the share SlowRate of slow calls
	// trips the breaker; SlowAfter is 0 without the slow-call rule.
	SlowAfter time.Duration
	SlowRate  float64
	Open      time.Duration // how long it stays open (WithOpenDuration)
	Probes    int           // probes admitted half-open (WithHalfOpen)
	Successes int           // probe successes that close it (WithHalfOpen)
	// IsFailure is WithIsFailure's classifier, nil for every error.
	IsFailure func(error) bool
	// OnChange is WithStateChange's hook, nil for none, with the states
	// as uint8 values of breaker.State.
	OnChange func(from, to uint8)
	Clock    clock.Clock
	// Unshared names the first option given that a fleet-wide breaker
	// cannot share, such as "WithOpenBackOff", or is "".
	Unshared string
}

// TokenBucket is what a fleet-wide token bucket takes of a
// budget.NewTokenBucket.
type TokenBucket struct {
	MaxTokens  int64 // the capacity, in thousandths of a token (WithMaxTokens)
	TokenRatio int64 // what a success gives back, in thousandths (WithTokenRatio)
	// IsFailure is WithIsFailure's classifier, nil for every error.
	IsFailure func(error) bool
	Clock     clock.Clock // WithClock's, which a local token bucket does not read
}

// Ratio is what a fleet-wide ratio budget takes of a budget.NewRatio.
type Ratio struct {
	Window  time.Duration // the window's length (WithWindow)
	Reserve uint64        // the retries a window allows whatever the traffic (WithMinRetriesPerSecond)
	Ratio   uint64        // the retries allowed per million first attempts (WithRetryRatio)
	Clock   clock.Clock   // WithClock's
	Offset  time.Duration // WithWindowOffset's, which a fleet-wide budget cannot use
}
