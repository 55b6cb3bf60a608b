package herd

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
)

// Scenario names what the simulated clients try to do. See [OCC] and
// [Restart].
type Scenario string

const (
	// OCC is the AWS optimistic-concurrency experiment: every client wants
	// one successful conditional write to the same row.
	OCC Scenario = "occ"
	// Restart is a server restart: every client reconnects at time 0 to a
	// server that accepts at most Capacity connections per window.
	Restart Scenario = "restart"
)

// Scenarios lists the built-in scenarios.
func Scenarios() []Scenario { return []Scenario{OCC, Restart} }

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
	// rather than an out-of-memory crash.
	MaxClients = 1_000_000
	MaxWindows = 10_000_000
)

// ErrInvalidConfig is matched, with errors.Is, by every error that reports
// a Config that cannot be simulated. The error names the offending field.
var ErrInvalidConfig = errors.New("herd: invalid configuration")

// Delay is the one-way network delay of every message: |Normal(Mean,
// StdDev)|, drawn independently per message. The zero Delay means the
// study's |Normal(10 ms, 2 ms)|; any other value is used as given, so
// Delay{Mean: 10 * time.Millisecond} is a network without variance.
type Delay struct {
	Mean   time.Duration
	StdDev time.Duration
}

// Config describes one simulation. Only Scenario, Clients and NewPolicy
// must be set; every other zero field means the default named in its
// comment. A Config is a plain value and may be reused.
type Config struct {
	// Scenario is OCC or Restart.
	Scenario Scenario
	// Clients is the size of the fleet, from 1 to MaxClients.
	Clients int
	// NewPolicy returns a fresh policy for one client; it is called once
	// per client, and must not return the same stateful policy twice.
	//
	// Simulate owns the randomness of the library's own policies: when
	// NewPolicy returns a *backoff.ExponentialBackOff, Simulate gives it
	// a random source of its own, seeded from Seed and the client's
	// number, in place of any it had (as backoff.WithRandom would). That
	// is what makes a Result repeatable. A policy of another type must be
	// deterministic itself for the Result to be.
	NewPolicy func() backoff.BackOff
	// Seed seeds the network delays and every client's random source.
	Seed uint64

	// Delay is the one-way network delay; zero means |Normal(10 ms, 2 ms)|.
	Delay Delay
	// Window is the width of the windows that load and capacity are
	// counted in; zero means DefaultWindow (10 ms).
	Window time.Duration
	// Capacity is how many connections the Restart server accepts per
	// window; zero means DefaultCapacity. OCC ignores it.
	Capacity int
	// MaxCalls is how many calls one client makes before it gives up; zero
	// means DefaultMaxCalls. It is what makes immediate retry end.
	MaxCalls int
	// Horizon is the virtual time after which the simulation stops, with
	// the clients still retrying counted as unfinished; zero means
	// DefaultHorizon (one hour).
	Horizon time.Duration
}

// Validate reports the first field of c that cannot be simulated, as an
// error matching ErrInvalidConfig, or nil. Simulate calls it first.
func (c Config) Validate() error {
	switch {
	case c.Scenario != OCC && c.Scenario != Restart:
		return invalid("Scenario %q is not known; use %q or %q", string(c.Scenario), OCC, Restart)
	case c.Clients < 1 || c.Clients > MaxClients:
		return invalid("Clients is %d; it must lie in [1, %d]", c.Clients, MaxClients)
	case c.NewPolicy == nil:
		return invalid("NewPolicy is nil")
	case c.Delay.Mean < 0:
		return invalid("Delay.Mean is negative (%v)", c.Delay.Mean)
	case c.Delay.StdDev < 0:
		return invalid("Delay.StdDev is negative (%v)", c.Delay.StdDev)
	case c.Window < 0:
		return invalid("Window is negative (%v)", c.Window)
	case c.Capacity < 0:
		return invalid("Capacity is negative (%d)", c.Capacity)
	case c.MaxCalls < 0:
		return invalid("MaxCalls is negative (%d)", c.MaxCalls)
	case c.Horizon < 0:
		return invalid("Horizon is negative (%v)", c.Horizon)
	}
	if d := c.withDefaults(); d.Horizon/d.Window >= MaxWindows {
		return invalid("Horizon (%v) spans %d Windows of %v; at most %d", d.Horizon, d.Horizon/d.Window, d.Window, MaxWindows)
	}
	return nil
}

// withDefaults returns c with every zero field that has a default set to it.
func (c Config) withDefaults() Config {
	if c.Delay == (Delay{}) {
		c.Delay = Delay{Mean: DefaultDelayMean, StdDev: DefaultDelayStdDev}
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Capacity == 0 {
		c.Capacity = DefaultCapacity
	}
	if c.MaxCalls == 0 {
		c.MaxCalls = DefaultMaxCalls
	}
	if c.Horizon == 0 {
		c.Horizon = DefaultHorizon
	}
	return c
}

// invalid returns an error matching ErrInvalidConfig.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
}
