package herd

import (
	"fmt"
	"math/rand/v2"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// clientBackOff returns a new BackOff of client c, from NewBackOff: an
// error matching ErrInvalidBackOff if it is nil, fails its own Validate,
// or is an exponential BackOff seen (given to another client) already.
// It gives each of the library's exponential BackOffs its own seeded
// random source, and adds it to seen.
func (s *sim) clientBackOff(c int, seen map[*backoff.ExponentialBackOff]bool) (backoff.BackOff, error) {
	b := s.cfg.NewBackOff()
	if b == nil {
		return nil, fmt.Errorf("%w: NewBackOff returned nil for client %d", ErrInvalidBackOff, c)
	}
	if v, ok := b.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidBackOff, err)
		}
	}
	if e, ok := b.(*backoff.ExponentialBackOff); ok {
		if seen[e] {
			return nil, fmt.Errorf("%w: NewBackOff returned the same *backoff.ExponentialBackOff twice; return a fresh one per client", ErrInvalidBackOff)
		}
		seen[e] = true
		e.Random = rand.New(rand.NewPCG(mix(s.cfg.Seed), mix(uint64(c)+1))).Float64
	}
	if _, ok := b.(interface{ Clone() backoff.BackOff }); !ok {
		b = owned{b}
	}
	return b, nil
}

// owned is a client's BackOff that has no Clone of its own. NewBackOff
// made it for this client alone, and the simulation runs one event at a
// time, so the client's Retrier, which requires a Clone, may use it as it
// is: its Clone returns it.
type owned struct{ backoff.BackOff }

// Clone returns o itself.
func (o owned) Clone() backoff.BackOff { return o }

// clientGuards returns the guards NewGuards makes for client c, on the
// virtual clock, drawing from a seeded random source of the client's own.
func (s *sim) clientGuards(c int) []guard.Guard {
	r := rand.New(rand.NewPCG(mix(s.cfg.Seed^0xa54ff53a5f1d36f1), mix(uint64(c)+1)))
	return s.cfg.NewGuards(s.clk, r.Float64)
}

// checkGuard returns an error matching ErrInvalidBackOff if g, guard i of
// client c, is nil or fails its own Validate, and nil otherwise.
func checkGuard(g guard.Guard, i, c int) error {
	if g == nil {
		return fmt.Errorf("%w: NewGuards returned a nil guard (number %d) for client %d", ErrInvalidBackOff, i, c)
	}
	if v, ok := g.(guard.Validator); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("%w: guard %d: %w", ErrInvalidBackOff, i, err)
		}
	}
	return nil
}
