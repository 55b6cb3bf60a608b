package herd

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// A GuardSpec is one guard of a client of the Outage scenario: a kind of
// this library's guards and its settings, the fields of the Spec. Its
// NewGuard makes the guard, on the simulation's clock.
type GuardSpec interface {
	Spec
	// NewGuard makes the guard of one client. env is what the simulation
	// gives the client: its clock, its random draws, and the offset to lay
	// a window out at.
	NewGuard(env GuardEnv) guard.Guard
}

// GuardEnv is what a GuardSpec makes a client's guard with.
type GuardEnv struct {
	// Clock is the simulation's virtual clock.
	Clock clock.Clock
	// Random returns the client's seeded draws in [0, 1).
	Random func() float64
	// Offset returns the offset at which to lay out a window of d
	// (budget.WithWindowOffset, throttle.WithWindowOffset): a random one
	// in [0, d), drawn from Random, unless every client's windows start
	// together (Stack.ZeroOffsets).
	Offset func(d time.Duration) time.Duration
}

// A GuardKind is a kind of guard the strategies of the Outage scenario
// are built from, by name.
type GuardKind struct {
	// Name is the kind's name in an expression.
	Name string
	// Doc says what the kind is, in a line.
	Doc string
	// New returns a Spec of the kind with its defaults, the guard's own.
	New func() GuardSpec
}

// guardKinds are the kinds ParseStack knows, in the order GuardKinds
// lists them. A kind is added here: a Spec type with its settings bound
// in Params, and a line.
var guardKinds = []GuardKind{
	{"token-bucket", "gRPC's retry throttling: budget.NewTokenBucket", func() GuardSpec {
		return &TokenBucket{Tokens: budget.DefaultMaxTokens, Ratio: budget.DefaultTokenRatio}
	}},
	{"ratio", "Finagle's retry budget: budget.NewRatio", func() GuardSpec {
		return &RatioBudget{Ratio: budget.DefaultRetryRatio, Reserve: budget.DefaultMinRetriesPerSecond, Window: budget.DefaultWindow}
	}},
	{"in-flight", "Envoy's retry budget, over the calls in flight: budget.NewInFlight", func() GuardSpec {
		return &InFlightBudget{Ratio: budget.DefaultInFlightRatio, Min: budget.DefaultMinRetryConcurrency}
	}},
	{"breaker", "a circuit breaker tripped by failures in a row, or with rate by a failure rate: breaker.New", func() GuardSpec {
		return &Breaker{Failures: breaker.DefaultConsecutiveFailures, Open: breaker.DefaultOpenDuration,
			Probes: breaker.DefaultProbes, Successes: breaker.DefaultProbeSuccesses}
	}},
	{"throttle", "the SRE book's adaptive throttling: throttle.New", func() GuardSpec {
		return &Throttle{K: throttle.DefaultK, Window: throttle.DefaultWindow}
	}},
	{"bulkhead", "at most max attempts in flight per client, the others refused: bulkhead.New", func() GuardSpec {
		return &Bulkhead{Max: 10}
	}},
	{"limiter", "an adaptive concurrency limit, by the gradient rule or, with alpha, Vegas's: limiter.New", func() GuardSpec {
		return &Limiter{Initial: limiter.DefaultInitialLimit, Floor: limiter.DefaultFloor, Ceiling: limiter.DefaultCeiling,
			Tolerance: limiter.DefaultTolerance, Beta: limiter.DefaultBeta, Decrease: limiter.DefaultDecrease,
			Window: limiter.DefaultWindow, Samples: limiter.DefaultWindowSamples, Baseline: limiter.DefaultBaseline}
	}},
}

// GuardKinds returns the kinds of guard ParseStack knows.
func GuardKinds() []GuardKind { return append([]GuardKind(nil), guardKinds...) }

// guardKind returns the kind named name.
func guardKind(name string) (GuardKind, bool) {
	for _, k := range guardKinds {
		if k.Name == name {
			return k, true
		}
	}
	return GuardKind{}, false
}

// TokenBucket is a budget.NewTokenBucket: gRPC's retry throttling.
type TokenBucket struct {
	Tokens float64 // budget.WithMaxTokens
	Ratio  float64 // budget.WithTokenRatio
}

func (*TokenBucket) Kind() string { return "token-bucket" }

func (s *TokenBucket) Params() []Param {
	return []Param{
		{"tokens", "the bucket's size; retries stop at half of it", &s.Tokens},
		{"ratio", "tokens back per success; a failure takes 1", &s.Ratio},
	}
}

func (s *TokenBucket) NewGuard(GuardEnv) guard.Guard {
	return budget.NewTokenBucket(budget.WithMaxTokens(s.Tokens), budget.WithTokenRatio(s.Ratio))
}

// RatioBudget is a budget.NewRatio: Finagle's retry budget.
type RatioBudget struct {
	Ratio   float64       // budget.WithRetryRatio
	Reserve float64       // budget.WithMinRetriesPerSecond
	Window  time.Duration // budget.WithWindow
}

func (*RatioBudget) Kind() string { return "ratio" }

func (s *RatioBudget) Params() []Param {
	return []Param{
		{"ratio", "retries allowed per request of the window", &s.Ratio},
		{"reserve", "retries allowed per second whatever the traffic", &s.Reserve},
		{"window", "how long requests and retries are remembered", &s.Window},
	}
}

func (s *RatioBudget) NewGuard(env GuardEnv) guard.Guard {
	opts := []budget.Option{budget.WithRetryRatio(s.Ratio), budget.WithMinRetriesPerSecond(s.Reserve),
		budget.WithWindow(s.Window), budget.WithClock(env.Clock)}
	if s.Window >= budget.MinWindow {
		opts = append(opts, budget.WithWindowOffset(env.Offset(s.Window)))
	}
	return budget.NewRatio(opts...)
}

// Breaker is a breaker.New tripped by failures in a row, or, when any of
// Rate, MinCalls, Calls and Period is set, by the failure rate of a window
// of the last Calls calls (breaker.WithFailureRate) or of the calls of the
// last Period (breaker.WithFailureRateOver). When Slow or SlowRate is set,
// it trips on slow calls too (breaker.WithSlowCalls), which needs the
// failure-rate rule. Settings of two rules at once (Failures with the
// failure rate, Calls with Period) make a guard that reports them through
// its Validate and refuses every call.
type Breaker struct {
	Failures  int           // breaker.WithConsecutiveFailures
	Open      time.Duration // breaker.WithOpenDuration
	Probes    int           // breaker.WithHalfOpen: the probes
	Successes int           // breaker.WithHalfOpen: the successes that close it
	Rate      float64       // breaker.WithFailureRate, WithFailureRateOver: the rate
	MinCalls  int           // breaker.WithFailureRate, WithFailureRateOver: the fewest calls
	Calls     int           // breaker.WithFailureRate: the window's calls
	Period    time.Duration // breaker.WithFailureRateOver: the window's length
	Slow      time.Duration // breaker.WithSlowCalls: the latency past which a call is slow
	SlowRate  float64       // breaker.WithSlowCalls: the rate of slow calls
}

func (*Breaker) Kind() string { return "breaker" }

func (s *Breaker) Params() []Param {
	return []Param{
		{"failures", "failures in a row that open it", &s.Failures},
		{"open", "how long it stays open before a probe", &s.Open},
		{"probes", "calls admitted while half-open", &s.Probes},
		{"successes", "probe successes that close it", &s.Successes},
		{"rate", "if above 0: the share of failed calls of its window that opens it, instead of failures", &s.Rate},
		{"min-calls", "rate: the calls its window must hold first", &s.MinCalls},
		{"calls", "rate: its window is the last this many calls", &s.Calls},
		{"period", "rate, instead of calls: its window is the calls of the last period", &s.Period},
		{"slow", "rate: if above 0, a call that takes longer is slow", &s.Slow},
		{"slow-rate", "slow: the share of slow calls of the window that opens it", &s.SlowRate},
	}
}

// exclusive refuses failures given with a setting of the failure rate,
// even failures at its default, which the struct cannot tell from unset.
func (*Breaker) exclusive(given map[string]bool) error {
	if given["failures"] && (given["rate"] || given["min-calls"] || given["calls"] || given["period"]) {
		return invalid("breaker: failures and rate are two trip rules: give one")
	}
	return nil
}

// rateRule reports whether a setting of the failure-rate rule is set.
func (s *Breaker) rateRule() bool {
	return s.Rate != 0 || s.MinCalls != 0 || s.Calls != 0 || s.Period != 0
}

func (s *Breaker) NewGuard(env GuardEnv) guard.Guard {
	opts := []breaker.Option{breaker.WithOpenDuration(s.Open), breaker.WithHalfOpen(s.Probes, s.Successes), breaker.WithClock(env.Clock)}
	switch {
	case !s.rateRule():
		opts = append(opts, breaker.WithConsecutiveFailures(s.Failures))
	case s.Failures != breaker.DefaultConsecutiveFailures:
		return refuseAll("failures and rate are two trip rules: give one")
	case s.Calls != 0 && s.Period != 0:
		return refuseAll("calls and period are two windows of the failure rate: give one")
	case s.Period != 0:
		opts = append(opts, breaker.WithFailureRateOver(s.Rate, s.MinCalls, s.Period))
	default:
		opts = append(opts, breaker.WithFailureRate(s.Rate, s.MinCalls, s.Calls))
	}
	if s.Slow != 0 || s.SlowRate != 0 {
		opts = append(opts, breaker.WithSlowCalls(s.Slow, s.SlowRate))
	}
	return breaker.New(opts...)
}

// InFlightBudget is a budget.NewInFlight: Envoy's retry budget, the
// retries in flight at most a share of the calls in flight, or a minimum.
type InFlightBudget struct {
	Ratio float64 // budget.WithInFlightRatio
	Min   int     // budget.WithMinRetryConcurrency
}

func (*InFlightBudget) Kind() string { return "in-flight" }

func (s *InFlightBudget) Params() []Param {
	return []Param{
		{"ratio", "the share of the calls in flight that may be retries", &s.Ratio},
		{"min", "retries allowed in flight whatever the load", &s.Min},
	}
}

func (s *InFlightBudget) NewGuard(GuardEnv) guard.Guard {
	return budget.NewInFlight(budget.WithInFlightRatio(s.Ratio), budget.WithMinRetryConcurrency(s.Min))
}

// Throttle is a throttle.New: the SRE book's adaptive throttling,
// drawing from the client's random source.
type Throttle struct {
	K      float64       // throttle.WithK
	Window time.Duration // throttle.WithWindow
}

func (*Throttle) Kind() string { return "throttle" }

func (s *Throttle) Params() []Param {
	return []Param{
		{"k", "requests allowed per accept before it sheds", &s.K},
		{"window", "how long requests and accepts are remembered", &s.Window},
	}
}

func (s *Throttle) NewGuard(env GuardEnv) guard.Guard {
	opts := []throttle.Option{throttle.WithK(s.K), throttle.WithWindow(s.Window),
		throttle.WithClock(env.Clock), throttle.WithRandom(env.Random)}
	if s.Window >= throttle.MinWindow {
		opts = append(opts, throttle.WithWindowOffset(env.Offset(s.Window)))
	}
	return throttle.New(opts...)
}

// Bulkhead is a bulkhead.New without a queue: a client's calls past Max
// in flight are refused. It has no queue (bulkhead.WithQueue,
// WithMaxWait) because a simulation's callers run one at a time, each
// until it waits on the virtual clock: one blocked in a guard's queue,
// waiting for another caller to free a slot, would never hand control
// back.
type Bulkhead struct {
	Max int // the capacity
}

func (*Bulkhead) Kind() string { return "bulkhead" }

func (s *Bulkhead) Params() []Param {
	return []Param{{"max", "calls in flight at most", &s.Max}}
}

func (s *Bulkhead) NewGuard(env GuardEnv) guard.Guard {
	return bulkhead.New(s.Max, bulkhead.WithClock(env.Clock))
}

// Limiter is a limiter.New: a limit of attempts in flight per client that
// adapts to the latency it measures, by the gradient rule, or by Vegas's
// when Alpha is above 0. It has no queue (limiter.WithQueue, WithMaxWait),
// for the reason a Bulkhead has none, and no priority thresholds
// (limiter.WithPriorityThresholds): the simulation's calls carry no
// priority.
type Limiter struct {
	Initial, Floor, Ceiling int           // limiter.WithInitialLimit, WithFloor, WithCeiling
	Tolerance               float64       // limiter.WithGradient
	Alpha, Beta             float64       // limiter.WithVegas, when Alpha > 0
	Decrease                float64       // limiter.WithDecrease
	Window                  time.Duration // limiter.WithWindow: the shortest sample window
	Samples                 int           // limiter.WithWindow: the fewest calls of a sample window
	Baseline                time.Duration // limiter.WithBaseline
}

func (*Limiter) Kind() string { return "limiter" }

func (s *Limiter) Params() []Param {
	return []Param{
		{"initial", "the limit before anything is measured", &s.Initial},
		{"floor", "the lowest limit", &s.Floor},
		{"ceiling", "the highest limit", &s.Ceiling},
		{"tolerance", "gradient: the latency over the no-load latency taken for no queue", &s.Tolerance},
		{"alpha", "Vegas, if above 0: below this many calls queued the limit grows", &s.Alpha},
		{"beta", "Vegas: above this many calls queued the limit shrinks", &s.Beta},
		{"decrease", "the factor of the limit after a window with a failure", &s.Decrease},
		{"window", "the shortest sample window, after which the limit moves", &s.Window},
		{"samples", "the fewest calls a sample window holds", &s.Samples},
		{"baseline", "how long the no-load latency is remembered", &s.Baseline},
	}
}

func (s *Limiter) NewGuard(env GuardEnv) guard.Guard {
	rule := limiter.WithGradient(s.Tolerance)
	if s.Alpha > 0 {
		rule = limiter.WithVegas(s.Alpha, s.Beta)
	}
	return limiter.New(limiter.WithInitialLimit(s.Initial), limiter.WithFloor(s.Floor), limiter.WithCeiling(s.Ceiling),
		limiter.WithDecrease(s.Decrease), rule, limiter.WithWindow(s.Window, s.Samples), limiter.WithBaseline(s.Baseline),
		limiter.WithClock(env.Clock))
}

// refuseAll returns a guard whose settings cannot be used: Validate
// reports why, as an error matching backoff.ErrInvalidConfiguration, and
// Allow refuses every call with it.
func refuseAll(why string) guard.Guard {
	return unusable{setting.Package("herd").Invalid("%s", why)}
}

type unusable struct{ err error }

func (u unusable) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, u.err
}
func (unusable) Record(guard.Permit, guard.Outcome) {}
func (u unusable) Validate() error                  { return u.err }
