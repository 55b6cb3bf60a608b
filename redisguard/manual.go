package redisguard

// errManual is what the manual controls of a shared Breaker return.
var errManual = invalid("a shared Breaker cannot be forced open or closed, or reset, by one instance: " +
	"the fleet's state lives in Redis, and each instance's local fallback, which decides while Redis is " +
	"unreachable, would not know of it; force a breaker.New of each instance, or change the shared " +
	"configuration, instead")

// ForceOpen, ForceClosed and Reset are the manual controls of
// breaker.Breaker, which a shared Breaker cannot honour: its state is the
// fleet's, kept in Redis, and while Redis is unreachable every instance
// decides on its local fallback, which a force made through Redis would
// not reach, so a force could hold for part of the fleet and not for the
// rest. They change nothing, make no round trip, and return an error
// matching backoff.ErrInvalidConfiguration that says so (a Breaker that
// cannot be used returns its own configuration error instead). They exist
// so that code that controls breakers by these methods, an operator's
// endpoint, takes a shared Breaker too, and is told the truth rather than
// failing to compile or silently doing nothing.
func (b *Breaker) ForceOpen() error { return b.manual() }

// ForceClosed is refused on a shared Breaker; see ForceOpen.
func (b *Breaker) ForceClosed() error { return b.manual() }

// Reset is refused on a shared Breaker; see ForceOpen.
func (b *Breaker) Reset() error { return b.manual() }

// manual returns the error of a manual control.
func (b *Breaker) manual() error {
	if err := b.Validate(); err != nil {
		return err
	}
	return errManual
}
