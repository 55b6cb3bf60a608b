package pushback

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
)

// Rule computes the wait a server asks of the clients its guard refuses;
// see the package documentation for how. A Rule is a plain value, safe for
// concurrent use if its Random is: make one with a composite literal and
// check it with Validate.
type Rule struct {
	// Base is the shortest wait asked for: the wait of a refusal whose
	// guard tells nothing more. The guard's state lengthens it, and never
	// shortens it.
	Base time.Duration
	// Max is the longest wait asked for, the spread included.
	Max time.Duration
	// Unit is the resolution of the wire: every wait is a whole number of
	// Units, one at least. time.Second for HTTP's Retry-After,
	// time.Millisecond for gRPC's grpc-retry-pushback-ms.
	Unit time.Duration
	// Random returns a draw in [0, 1) each time it is called, from any
	// goroutine at once: the spread's. Nil is math/rand/v2's Float64, which
	// takes no lock. A draw outside [0, 1), or NaN, is taken as the nearest
	// bound of that range: a Random that returns 0 spreads nothing.
	Random func() float64
}

// settings makes the errors of a Rule that cannot be used.
const settings = setting.Package("pushback")

// Validate reports why r cannot be used, as an error matching
// backoff.ErrInvalidConfiguration that names the field, or nil: Unit must
// be positive, Base at least one Unit, and Max at least Base.
func (r Rule) Validate() error {
	switch {
	case r.Unit <= 0:
		return settings.Invalid("Rule.Unit (%v) must be positive", r.Unit)
	case r.Base < r.Unit:
		return settings.Invalid("Rule.Base (%v) is shorter than one Rule.Unit (%v): the wire cannot say it", r.Base, r.Unit)
	case r.Max < r.Base:
		return settings.Invalid("Rule.Max (%v) is shorter than Rule.Base (%v)", r.Max, r.Base)
	}
	return nil
}

// Wait returns the wait to tell a client whose call g refused with refusal
// (what g's Allow returned, or an error that wraps it, as guard.Run
// returns it): the wait g's state asks for, spread, a whole number of
// Units in [Unit, Max]. It reads g's state, as its Stats would, and draws
// once from Random; it allocates nothing and takes no lock of its own. A
// Rule that Validate rejects returns 0: check it where the Rule is made. A
// nil g, typed or not, tells nothing of its state: the wait is then the
// one refusal names, or Base, spread.
func (r Rule) Wait(g guard.Guard, refusal error) time.Duration {
	if r.Validate() != nil {
		return 0
	}
	u := 0.0
	if r.Random != nil {
		u = r.Random()
	} else {
		u = rand.Float64()
	}
	return r.spread(hint(g, refusal, r.Base), u)
}

// spread returns the wait d spread by the draw u: d + u × (d + Unit), cut
// down to whole Units, at least d rounded up to them, and at most Max cut
// down to them. r is valid.
func (r Rule) spread(d time.Duration, u float64) time.Duration {
	maxN := r.Max / r.Unit // at least 1: Max ≥ Base ≥ Unit
	if d >= r.Max {
		return maxN * r.Unit
	}
	lo := d / r.Unit // d rounded up to whole Units, without overflow
	if d%r.Unit != 0 {
		lo++
	}
	switch {
	case !(u >= 0): // NaN included
		u = 0
	case u >= 1:
		u = math.Nextafter(1, 0)
	}
	// The whole Units below 2d + Unit: floating point may round a draw
	// just below 1 up to that bound.
	hi := maxN
	if d <= (math.MaxInt64-r.Unit)/2 {
		hi = (2*d + r.Unit - 1) / r.Unit
	}
	n := lo
	if x := float64(d) + u*(float64(d)+float64(r.Unit)); x >= float64(r.Max) {
		n = maxN
	} else if w := time.Duration(x) / r.Unit; w > n {
		n = w
	}
	return min(n, hi, maxN) * r.Unit
}
