package herd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/policy"
)

// LayersConfig is a chain of services whose bottom dependency fails: the
// user calls the top tier, each tier calls the one below it through a
// Policy of its own with a retry stage of Tries attempts, and the lowest
// tier calls the dependency. The dependency is healthy for Warmup, down
// (every call fails) for Down, then healthy for Healthy; Rate user calls
// arrive each second, evenly spaced.
//
// The chain runs in zero time: a user call, its calls down the chain and
// their retries all happen at its arrival instant, and a retry waits
// nothing (a backoff.ZeroBackOff), so what is measured is how many calls
// the dependency receives per user call (the amplification), which waits
// do not change. A server's load (the "shed" strategy) is its calls in the
// current second.
type LayersConfig struct {
	Tiers int  // retrying tiers above the dependency; 3 if 0
	Tries uint // attempts of each tier's retry stage; 3 if 0
	Rate  int  // user calls a second; 100 if 0
	// Warmup, Down and Healthy are the phases; 10 s, 30 s and 30 s if all
	// are 0.
	Warmup, Down, Healthy time.Duration
	// Capacity is the calls a second each server (every tier, and the
	// dependency) serves in the "shed" strategy, as a multiple of Rate;
	// 2 if 0.
	Capacity float64
}

// The strategies of the Layers scenario, by name.
const (
	// LayersRetry retries at every tier, as most services do: a chain of
	// n tiers of k tries sends k^n calls to a failing dependency.
	LayersRetry = "retry"
	// LayersSignal retries at every tier, and a tier whose own retries are
	// spent says "do not retry" (package hop), which the tier above
	// honours: only the lowest tier retries.
	LayersSignal = "signal"
	// LayersBudget gives each tier's retry stage a retry budget (a
	// budget.NewTokenBucket, gRPC's retry throttling).
	LayersBudget = "budget"
	// LayersShed gives each server a capacity (LayersConfig.Capacity): past
	// 80% of it, it refuses retries with "do not retry"
	// (hop.ReasonOverloaded), which its caller honours; past all of it, it
	// refuses first calls too, which its caller may retry.
	LayersShed = "shed"
)

// LayersStrategies returns the names of the Layers scenario's strategies.
func LayersStrategies() []string {
	return []string{LayersRetry, LayersSignal, LayersBudget, LayersShed}
}

// LayersPhase is what a phase of the Layers scenario measured.
type LayersPhase struct {
	Name        string // warmup, down or healthy
	UserCalls   int    // user calls that arrived in the phase
	BottomCalls int    // calls the dependency received for them
	Failed      int    // user calls that failed
}

// Amplification is the calls the dependency received per user call.
func (p LayersPhase) Amplification() float64 {
	if p.UserCalls == 0 {
		return 0
	}
	return float64(p.BottomCalls) / float64(p.UserCalls)
}

// LayersResult is what a run of the Layers scenario measured.
type LayersResult struct {
	Strategy string
	Phases   []LayersPhase
	// Recovery is how long after the dependency came back the first
	// second began in which at most 1% of the user calls failed and the
	// dependency received at most 1.1 calls per user call; -1 if no such
	// second came.
	Recovery time.Duration
}

// Layers runs the Layers scenario with the strategy named strategy (one
// of LayersStrategies). An invalid cfg, or an unknown strategy, is
// reported as an error matching ErrInvalidConfig.
func Layers(cfg LayersConfig, strategy string) (LayersResult, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(strategy); err != nil {
		return LayersResult{}, err
	}
	c := newChain(cfg, strategy)
	res := LayersResult{Strategy: strategy, Recovery: -1}
	phases := []struct {
		name string
		d    time.Duration
		down bool
	}{{"warmup", cfg.Warmup, false}, {"down", cfg.Down, true}, {"healthy", cfg.Healthy, false}}
	for _, ph := range phases {
		p := LayersPhase{Name: ph.name}
		seconds := int(math.Ceil(ph.d.Seconds()))
		for s := range seconds {
			var second LayersPhase
			for range cfg.Rate {
				c.down = ph.down
				before := c.bottomCalls
				err := c.user()
				second.UserCalls++
				second.BottomCalls += c.bottomCalls - before
				if err != nil {
					second.Failed++
				}
			}
			c.nextSecond()
			p.UserCalls += second.UserCalls
			p.BottomCalls += second.BottomCalls
			p.Failed += second.Failed
			if ph.name == "healthy" && res.Recovery < 0 &&
				second.Failed*100 <= second.UserCalls && second.Amplification() <= 1.1 {
				res.Recovery = time.Duration(s) * time.Second
			}
		}
		res.Phases = append(res.Phases, p)
	}
	return res, nil
}

func (cfg LayersConfig) withDefaults() LayersConfig {
	if cfg.Tiers == 0 {
		cfg.Tiers = 3
	}
	if cfg.Tries == 0 {
		cfg.Tries = 3
	}
	if cfg.Rate == 0 {
		cfg.Rate = 100
	}
	if cfg.Warmup == 0 && cfg.Down == 0 && cfg.Healthy == 0 {
		cfg.Warmup, cfg.Down, cfg.Healthy = 10*time.Second, 30*time.Second, 30*time.Second
	}
	if cfg.Capacity == 0 {
		cfg.Capacity = 2
	}
	return cfg
}

// check reports what makes cfg, completed with its defaults, impossible to
// run with strategy.
func (cfg LayersConfig) check(strategy string) error {
	switch {
	case cfg.Tiers < 1 || cfg.Tiers > 6:
		return invalid("LayersConfig.Tiers is %d; it must be 1 to 6", cfg.Tiers)
	case cfg.Tries > 10:
		return invalid("LayersConfig.Tries is %d; it must be 1 to 10", cfg.Tries)
	case cfg.Rate < 1 || cfg.Rate > 100_000:
		return invalid("LayersConfig.Rate is %d; it must be 1 to 100000", cfg.Rate)
	case cfg.Warmup < 0 || cfg.Down < 0 || cfg.Healthy < 0 || cfg.Warmup > time.Hour || cfg.Down > time.Hour || cfg.Healthy > time.Hour ||
		cfg.Warmup+cfg.Down+cfg.Healthy > time.Hour: // each bounded first, so that the sum cannot wrap
		return invalid("LayersConfig's phases (%v, %v, %v) must not be negative, and last an hour at most", cfg.Warmup, cfg.Down, cfg.Healthy)
	case !(cfg.Capacity > 0) || math.IsInf(cfg.Capacity, 0):
		return invalid("LayersConfig.Capacity is %v; it must be above 0 and finite", cfg.Capacity)
	}
	for _, s := range LayersStrategies() {
		if s == strategy {
			return nil
		}
	}
	return invalid("%q is not a strategy of the layers scenario; use %v", strategy, LayersStrategies())
}

// errDependencyDown is the failure of the dependency while it is down.
var errDependencyDown = errors.New("herd: the dependency is down")

// errOverCapacity is a server's refusal of a first call over its
// capacity: its caller may retry it.
var errOverCapacity = errors.New("herd: over capacity")

// errTierFailed is what a tier answers when its calls below failed: a
// plain failure, as a status crosses the wire, which carries none of the
// errors behind it.
var errTierFailed = errors.New("herd: the tier's call below failed")

// errStop is what a tier answers when it says "do not retry".
var errStop = fmt.Errorf("herd: %w", hop.ErrDoNotRetry)

// chain is one run's chain of tiers.
type chain struct {
	cfg         LayersConfig
	strategy    string
	down        bool
	bottomCalls int
	servers     []server // the tiers, top first, then the dependency
	policies    []*policy.Policy
}

// server is a server's count of the calls of the current second.
type server struct{ calls int }

type attemptKey struct{}

func newChain(cfg LayersConfig, strategy string) *chain {
	c := &chain{cfg: cfg, strategy: strategy, servers: make([]server, cfg.Tiers+1)}
	for range cfg.Tiers {
		stages := []policy.Stage{policy.Retry(backoff.WithMaxTries(cfg.Tries), backoff.WithBackOff(&backoff.ZeroBackOff{}))}
		if strategy == LayersBudget {
			stages = append(stages, policy.Guard(budget.NewTokenBucket()))
		}
		c.policies = append(c.policies, policy.New(stages...))
	}
	return c
}

// nextSecond starts a new second: the servers' loads start over.
func (c *chain) nextSecond() {
	for i := range c.servers {
		c.servers[i].calls = 0
	}
}

// user makes one user call: a first call to the top tier.
func (c *chain) user() error {
	return c.serve(context.WithValue(context.Background(), attemptKey{}, 1), 0)
}

// serve is server i (a tier, or the dependency for i == Tiers) answering a
// call whose context carries its attempt number.
func (c *chain) serve(ctx context.Context, i int) error {
	if c.strategy == LayersShed {
		attempt, _ := ctx.Value(attemptKey{}).(int)
		capacity := c.cfg.Capacity * float64(c.cfg.Rate)
		load := float64(c.servers[i].calls) / capacity
		switch {
		case attempt > 1 && load >= 0.8:
			return errStop
		case load >= 1:
			return errOverCapacity
		}
		c.servers[i].calls++
	}
	if i == c.cfg.Tiers {
		c.bottomCalls++
		if c.down {
			return errDependencyDown
		}
		return nil
	}
	n := 0
	err := c.policies[i].DoErr(ctx, func(actx context.Context) error {
		n++
		return c.serve(context.WithValue(actx, attemptKey{}, n), i+1)
	})
	switch {
	case err == nil:
		return nil
	case c.strategy == LayersSignal && (n > 1 || errors.Is(err, backoff.ErrRetriesCanceled)):
		return errStop // this tier's retries are spent, or the tier below said so
	}
	return errTierFailed
}
