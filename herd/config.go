package herd

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/policy"
)

// Scenario names what the simulated clients try to do. See [OCC],
// [Restart], [Outage] and [Overload].
type Scenario string

const (
	// OCC is the AWS optimistic-concurrency experiment: every client wants
	// one successful conditional write to the same row.
	OCC Scenario = "occ"
	// Restart is a server restart: every client reconnects at time 0 to a
	// server that accepts at most Capacity connections per window.
	Restart Scenario = "restart"
	// Outage is a dependency that goes down under a steady load: every
	// client sends user calls at Rate, through the retry loop and the
	// guards of its strategy, while the dependency is healthy, then fully
	// down, then degraded, then healthy again (see Phases).
	Outage Scenario = "outage"
	// Shed is a server restart like Restart's, against a server that
	// serves Capacity requests at once and sheds the others with a bare
	// 503: the middleware of package httpshed without its Retry-After.
	Shed Scenario = "shed"
	// Pushback is Shed with the Retry-After: the server tells each
	// request it sheds when to come back, and the clients obey as package
	// httpretry does.
	Pushback Scenario = "pushback"
)

// Scenarios lists the built-in scenarios.
func Scenarios() []Scenario { return []Scenario{OCC, Restart, Outage, Shed, Pushback, Overload} }

// Defaults of the simulation, from the AWS study where it gives one.
const (
	// DefaultDelayMean and DefaultDelayStdDev are the one-way network delay,
	// |Normal(10 ms, 2 ms)|.
	DefaultDelayMean   = 10 * time.Millisecond
	DefaultDelayStdDev = 2 * time.Millisecond
	// DefaultWindow is the width of the windows load is counted in.
	DefaultWindow = 10 * time.Millisecond
	// DefaultCapacity is how many connections the Restart server accepts
	// per window.
	DefaultCapacity = 10
	// DefaultMaxCalls is how many calls one client makes before it gives up.
	DefaultMaxCalls = 1000
	// DefaultHorizon is the virtual time after which a simulation stops.
	DefaultHorizon = time.Hour
	// DefaultBase and DefaultCap are the InitialInterval and MaxInterval of
	// the strategies, as in the AWS study.
	DefaultBase = 5 * time.Millisecond
	DefaultCap  = 2 * time.Second
	// MaxClients bounds Config.Clients, and MaxWindows the number of
	// windows from 0 to the horizon, so that a mistyped setting is an error
	// rather than an out-of-memory crash: each client of OCC, Restart,
	// Shed and Pushback holds a retry loop of its own, about 7 KB, so
	// MaxClients of them hold about 0.7 GB.
	MaxClients = 100_000
	MaxWindows = 10_000_000
)

// Defaults of the Outage scenario. The phases are long enough for every
// guard's own defaults to matter: the warm-up is the throttle's two-minute
// window (throttle.DefaultWindow), so that every guard starts the outage
// in its steady state, and the outage lasts the breaker's open duration
// (breaker.DefaultOpenDuration).
const (
	// DefaultRate is how many user calls one client starts per second.
	DefaultRate = 20
	// DefaultTries is how many attempts a user call makes at most, as in a
	// retry stage (policy.DefaultMaxTries).
	DefaultTries = policy.DefaultMaxTries
	// MaxTries bounds Config.Tries: every attempt of a user call is
	// simulated, so that the work grows with Tries; past a handful of
	// attempts a retry loop only adds load to a dependency that is down.
	MaxTries = 10
	// DefaultWarmup, DefaultDown, DefaultDegraded and DefaultHealthy are
	// the lengths of the phases.
	DefaultWarmup   = 2 * time.Minute
	DefaultDown     = time.Minute
	DefaultDegraded = time.Minute
	DefaultHealthy  = 2 * time.Minute
	// DefaultDegradedFailures is the fraction of the calls that fail while
	// the dependency is degraded.
	DefaultDegradedFailures = 0.3
	// MaxUserCalls bounds the user calls an Outage simulation starts
	// (Clients × Rate × the phases' length), so that a mistyped rate is
	// an error rather than hours of computing.
	MaxUserCalls = 100_000_000
)

// ErrInvalidConfig is matched, with errors.Is, by every error that reports
// a Config that cannot be simulated, or an expression ParseStack or
// ParseBackOff cannot read. It wraps backoff.ErrInvalidConfiguration, so
// each of these errors matches that too, as every error of a setting in
// this module does. The error says, after "backoff: invalid configuration:
// herd: " (the words of ErrInvalidConfig and ": "), what is wrong and names
// the offending field. A BackOff or a guard that a simulation finds it
// cannot use is reported in Result.Err as ErrInvalidBackOff instead.
var ErrInvalidConfig error = errInvalidConfig

// errInvalidConfig is ErrInvalidConfig, the sentinel that makes its errors.
var errInvalidConfig = setting.Package("herd").Sentinel()

// Delay is the one-way network delay of every message: |Normal(Mean,
// StdDev)|, drawn independently per message. The zero Delay means the
// study's |Normal(10 ms, 2 ms)|; any other value is used as given, so
// Delay{Mean: 10 * time.Millisecond} is a network without variance.
type Delay struct {
	Mean   time.Duration
	StdDev time.Duration
}

// Draw returns one delay of d as given (the zero Delay is not replaced by
// the default here): |Mean + normal()×StdDev|, at most the largest
// Duration, where normal returns a value of the standard normal
// distribution, such as rand.NormFloat64. It calls normal once, and not
// at all when StdDev is 0 (the delay is Mean), so that a network without
// variance draws nothing from normal's source. It is as safe for
// concurrent use as normal.
func (d Delay) Draw(normal func() float64) time.Duration {
	if d.StdDev == 0 {
		return d.Mean
	}
	v := math.Abs(float64(d.Mean) + normal()*float64(d.StdDev))
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(v)
}

// Phases are the states the dependency of the Outage scenario goes
// through, one after the other, by the time a call reaches it: healthy for
// Warmup (every call succeeds), down for Down (every call fails), degraded
// for Degraded (each call fails with probability DegradedFailures), then
// healthy for Healthy, after which the fleet starts no more user calls.
// The zero Phases means the defaults (DefaultWarmup, DefaultDown,
// DefaultDegraded, DefaultHealthy, DefaultDegradedFailures); any other
// value is used as given, so Degraded may be 0.
type Phases struct {
	Warmup, Down, Degraded, Healthy time.Duration
	// DegradedFailures is the fraction, in [0, 1], of the calls that fail
	// while the dependency is degraded.
	DegradedFailures float64
}

// total is the length of the four phases.
func (p Phases) total() time.Duration { return p.Warmup + p.Down + p.Degraded + p.Healthy }

// starts returns when each phase starts, and when the last one ends.
func (p Phases) starts() (bounds [NumPhases + 1]time.Duration) {
	for i, d := range []time.Duration{p.Warmup, p.Down, p.Degraded, p.Healthy} {
		bounds[i+1] = bounds[i] + d
	}
	return bounds
}

// Config describes one simulation. Only Scenario, Clients and NewBackOff
// must be set (Overload needs no NewBackOff); every other zero field means
// the default named in its comment. A Config is a plain value and may be
// reused.
//
// Rate, Tries and Phases describe the Outage scenario, Server the
// Overload scenario, and NewGuards both; the others ignore them. Capacity
// and MaxCalls do not apply to Outage or Overload.
type Config struct {
	// Scenario is OCC, Restart, Outage, Shed, Pushback or Overload.
	Scenario Scenario
	// Clients is the size of the fleet, from 1 to MaxClients.
	Clients int
	// NewBackOff returns a fresh BackOff for one client; it is called once
	// per client, and must not return the same stateful BackOff twice. In
	// OCC and Restart it drives the client's retry loop, a
	// backoff.Retrier with backoff.WithBackOff(b) and
	// backoff.WithMaxTries(MaxCalls) on the simulation's clock.
	//
	// Simulate owns the randomness of the library's own BackOffs: when
	// NewBackOff returns a *backoff.ExponentialBackOff, Simulate sets its
	// Random field to a random source of its own, seeded from Seed and the
	// client's number, in place of any it had. That is what makes a Result
	// repeatable. A BackOff of another type must be deterministic itself
	// for the Result to be.
	//
	// In the Outage scenario NewBackOff is the BackOff of the client's
	// retry stage, policy.Retry(backoff.WithBackOff(b), ...), which its
	// user calls share as a Policy's calls do: each that retries works on
	// a clone of b if b has a Clone method (see backoff.BackOff), as the
	// library's BackOffs do, and on b itself, Reset at its first retry, if
	// not.
	NewBackOff func() backoff.BackOff
	// NewGuards, for the Outage and Overload scenarios, returns the
	// guards of one client, outermost first, as they would stand inside
	// the retry stage of its Policy: policy.New(policy.Retry(...),
	// policy.Guard(gs[0]), policy.Guard(gs[1]), ...). It is
	// called once per client, in the order of the clients. nil, or an
	// empty slice, means no guard: retries only (in Overload, which does
	// not retry, every call sent).
	//
	// clk is the simulation's virtual clock, at the time of the event
	// being processed whenever a guard is called; random returns this
	// client's seeded draws in [0, 1). A guard must read the time from clk
	// (WithClock) and draw from random (throttle.WithRandom) for the
	// Result to be repeatable. clk tells the time (Now, Since, Until), and
	// its Timer times the retry stage's waits; its other timers, tickers
	// and sleeps panic, because nothing would ever fire them. A guard must not block in Allow either: the
	// simulation runs on one goroutine, and would wait forever (until the
	// context of SimulateContext is done, which Allow is given). Returning
	// the same guard to every client models one guard shared by the whole
	// fleet.
	NewGuards func(clk clock.Clock, random func() float64) []guard.Guard
	// Seed seeds the network delays and every client's random source (in
	// Outage, also the guards' draws and which calls the degraded
	// dependency fails).
	Seed uint64

	// Delay is the one-way network delay; zero means |Normal(10 ms, 2 ms)|.
	Delay Delay
	// Window is the width of the windows that load and capacity are
	// counted in; zero means DefaultWindow (10 ms).
	Window time.Duration
	// Capacity is how many connections the Restart server accepts per
	// window, and how many requests the Shed and Pushback server serves at
	// once (each for ShedServiceTime); zero means DefaultCapacity. OCC
	// ignores it.
	Capacity int
	// MaxCalls is how many calls one client makes before it gives up; zero
	// means DefaultMaxCalls. It is what makes immediate retry end.
	MaxCalls int
	// Horizon is the virtual time after which the simulation stops, with
	// the clients still retrying counted as unfinished; zero means
	// DefaultHorizon (one hour). In the Outage scenario it must not be
	// shorter than the phases: a user call still unfinished at the horizon
	// counts as failed.
	Horizon time.Duration

	// Rate is how many user calls each client of the Outage scenario
	// starts per second, on average (see Arrivals); zero means
	// DefaultRate.
	Rate float64
	// Tries is how many attempts a user call of the Outage scenario makes
	// at most, its first included, up to MaxTries; zero means DefaultTries.
	Tries int
	// Phases are the states of the Outage scenario's dependency; the zero
	// Phases means the defaults.
	Phases Phases
	// Arrivals says how the Outage scenario's user calls are spread in
	// time; the zero value means Poisson.
	Arrivals Arrivals

	// Server is the server of the Overload scenario, and the load on it;
	// the zero Server means the defaults. Overload uses Clients,
	// NewGuards, Seed, Delay, Window and Horizon too, and no BackOff: its
	// calls are not retried.
	Server Server
}

// Arrivals is how the user calls of the Outage scenario are spread in
// time.
type Arrivals string

const (
	// Poisson arrivals, the default, are how independent users arrive:
	// each client starts its user calls as a Poisson process at Rate, so
	// the gaps between the fleet's user calls are exponential, and each
	// falls on a client drawn at random.
	Poisson Arrivals = "poisson"
	// Even arrivals space the fleet's user calls evenly, on the clients in
	// turn: every client starts one every 1/Rate seconds exactly, in step
	// with the others.
	Even Arrivals = "even"
)

// Validate reports the first field of c that cannot be simulated, as an
// error matching ErrInvalidConfig, or nil. Simulate calls it first.
func (c Config) Validate() error {
	switch {
	case !slices.Contains(Scenarios(), c.Scenario):
		return invalid("Scenario %q is not known; use one of %q", string(c.Scenario), Scenarios())
	case c.Clients < 1 || c.Clients > MaxClients:
		return invalid("Clients is %d; it must lie in [1, %d]", c.Clients, MaxClients)
	case c.NewBackOff == nil && c.Scenario != Overload:
		return invalid("NewBackOff is nil")
	case c.Delay.Mean < 0:
		return invalid("Delay.Mean is negative (%v)", c.Delay.Mean)
	case c.Delay.StdDev < 0:
		return invalid("Delay.StdDev is negative (%v)", c.Delay.StdDev)
	case c.Window < 0:
		return invalid("Window is negative (%v)", c.Window)
	case c.Capacity < 0:
		return invalid("Capacity is negative (%d)", c.Capacity)
	case c.Capacity > bulkhead.MaxCapacity && (c.Scenario == Shed || c.Scenario == Pushback):
		return invalid("Capacity is %d; the %s server's bulkhead holds %d at most", c.Capacity, c.Scenario, bulkhead.MaxCapacity)
	case c.MaxCalls < 0:
		return invalid("MaxCalls is negative (%d)", c.MaxCalls)
	case c.Horizon < 0:
		return invalid("Horizon is negative (%v)", c.Horizon)
	}
	d := c.withDefaults()
	if d.Horizon/d.Window >= MaxWindows {
		return invalid("Horizon (%v) spans %d Windows of %v; at most %d", d.Horizon, d.Horizon/d.Window, d.Window, MaxWindows)
	}
	switch c.Scenario {
	case Outage:
		return d.validateOutage()
	case Overload:
		return d.validateOverload()
	}
	return nil
}

// validateOutage reports the first setting of the Outage scenario that
// cannot be simulated, in a Config with its defaults set.
func (c Config) validateOutage() error {
	p := c.Phases
	switch {
	case math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) || c.Rate < 0:
		return invalid("Rate is %v; it must be a positive number of user calls per second", c.Rate)
	case c.Tries < 0 || c.Tries > MaxTries:
		return invalid("Tries is %d; it must lie in [1, %d]", c.Tries, MaxTries)
	case c.Arrivals != Poisson && c.Arrivals != Even:
		return invalid("Arrivals is %q; use %q or %q", string(c.Arrivals), Poisson, Even)
	case p.Warmup < 0 || p.Degraded < 0:
		return invalid("Phases.Warmup (%v) and Phases.Degraded (%v) must not be negative", p.Warmup, p.Degraded)
	case p.Down <= 0:
		return invalid("Phases.Down is %v; the outage must last some time", p.Down)
	case p.Healthy < RecoveryHold:
		return invalid("Phases.Healthy is %v; the recovery is judged over a healthy phase of %v at least", p.Healthy, RecoveryHold)
	case !(p.DegradedFailures >= 0 && p.DegradedFailures <= 1):
		return invalid("Phases.DegradedFailures is %v; it must lie in [0, 1]", p.DegradedFailures)
	case p.total() < 0 || p.total() > c.Horizon:
		return invalid("the Phases last %v, longer than the Horizon (%v)", p.total(), c.Horizon)
	}
	if b := p.starts(); (b[PhaseHealthy]+c.Window-1)/c.Window >= b[NumPhases]/c.Window {
		return invalid("Phases.Healthy (%v) holds no whole Window of %v to judge the recovery by", p.Healthy, c.Window)
	}
	if float64(c.Clients)*c.Rate*c.Horizon.Seconds() < 1 {
		return invalid("Clients × Rate is %v user calls a second; the fleet must start one per Horizon (%v) at least", float64(c.Clients)*c.Rate, c.Horizon)
	}
	if n := float64(c.Clients) * c.Rate * p.total().Seconds(); n > MaxUserCalls {
		return invalid("Clients × Rate × the Phases' %v make %.3g user calls; at most %d", p.total(), n, MaxUserCalls)
	}
	return nil
}

// withDefaults returns c with every zero field that has a default set to it.
func (c Config) withDefaults() Config {
	c.Delay = cmp.Or(c.Delay, Delay{Mean: DefaultDelayMean, StdDev: DefaultDelayStdDev})
	c.Window = cmp.Or(c.Window, DefaultWindow)
	c.Capacity = cmp.Or(c.Capacity, DefaultCapacity)
	c.MaxCalls = cmp.Or(c.MaxCalls, DefaultMaxCalls)
	c.Horizon = cmp.Or(c.Horizon, DefaultHorizon)
	c.Rate = cmp.Or(c.Rate, DefaultRate)
	c.Tries = cmp.Or(c.Tries, DefaultTries)
	c.Arrivals = cmp.Or(c.Arrivals, Poisson)
	c.Phases = cmp.Or(c.Phases, Phases{Warmup: DefaultWarmup, Down: DefaultDown, Degraded: DefaultDegraded,
		Healthy: DefaultHealthy, DegradedFailures: DefaultDegradedFailures})
	return c
}

// invalid returns an error matching ErrInvalidConfig (and so
// backoff.ErrInvalidConfiguration) that says what is wrong, as format and
// args do for fmt.Errorf.
func invalid(format string, args ...any) error {
	return errInvalidConfig.Invalid(format, args...)
}

// reason returns the words of err, an error of a setting, after those
// every such error begins with and after this package's name: what is
// wrong, for a message that quotes it.
func reason(err error) string {
	return strings.TrimPrefix(setting.Reason(err), "herd: ")
}
