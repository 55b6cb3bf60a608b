package breaker

import (
	"time"

	"github.com/herdsafe/backoff/internal/setting"
)

// slowRule is the slow-call rule's settings: WithSlowCalls'.
type slowRule struct {
	after time.Duration // a call that takes longer is slow; 0: no slow-call rule
	rate  float64       // the share of slow calls that trips the breaker
	base  time.Time     // the clock's reading at New, from which Allow's times count
}

// MinSlowCall is the shortest duration WithSlowCalls accepts: the breaker
// measures its calls in microseconds.
const MinSlowCall = time.Microsecond

// WithSlowCalls makes the breaker trip on slow calls as well as on
// failures: a call that takes longer than after, from Allow to Record on
// the breaker's clock, is slow, whether it succeeded or failed, and the
// breaker trips when at least the fraction rate of the calls in its
// window were slow, as it trips when at least WithFailureRate's rate of
// them failed. For example
//
//	breaker.New(
//		breaker.WithFailureRate(0.5, 20, 100),
//		breaker.WithSlowCalls(2*time.Second, 0.8),
//	)
//
// trips when half of the last 100 calls failed, or when 80% of them took
// longer than 2 s, once there are 20.
//
// The slow-call rule shares the window and the minimum number of calls of
// the failure-rate rule, WithFailureRate's or WithFailureRateOver's,
// which must be given too: with the consecutive-failures rule, New
// reports WithSlowCalls as an invalid configuration. A call is counted
// once in the window, as a failure or not and as slow or not; Counts.Slow
// counts the slow ones. The rates are checked, as for the failure rate
// alone, when a call that counts against the dependency is recorded: a
// failure or a slow call. The calls that count neither way (an abandoned
// call, a refusal of a guard inside the breaker) are not measured. In the
// half-open state a slow probe opens the breaker again, as a failed one
// does: the dependency is not back yet. The breaker cannot see a call that
// has not returned: a call that hangs counts only when it ends, so bound
// the calls with a timeout too (policy.Timeout inside the breaker).
//
// With the rule, Allow and Record each read the breaker's clock once. A
// call's duration is measured modulo 2^40 µs (about 12 days): a call that
// takes longer may be counted as fast. after must be at least
// MinSlowCall, and rate must lie in (0, 1]; other values are reported as
// an invalid configuration.
func WithSlowCalls(after time.Duration, rate float64) Option {
	return func(c *config) {
		switch {
		case after < MinSlowCall:
			c.fail("WithSlowCalls was given the duration %v; it must be at least %v", after, MinSlowCall)
		case !setting.Fraction(settings, &c.err, rate, "WithSlowCalls", "rate"):
		default:
			c.slow.after, c.slow.rate = after, rate
		}
	}
}

// checkSlow records that the slow-call rule lacks the window of a
// failure-rate rule, and sets the origin of its times.
func (c *config) checkSlow() {
	if c.slow.after == 0 {
		return
	}
	if c.rule == consecutiveRule {
		c.fail("WithSlowCalls needs a failure-rate rule (WithFailureRate or WithFailureRateOver), whose window and minimum number of calls it shares")
		return
	}
	c.slow.base = c.clock.Now()
}

// A Permit's Token, with the slow-call rule: the low timeBits bits are the
// microseconds from the rule's base to Allow, modulo 2^timeBits; the bits
// above them are the generation, modulo genMax, from 1; the top bit is
// left clear, for the guards that wrap a Breaker and mark its Permits.
// Without the rule the Token is the generation itself.
const (
	timeBits = 40
	timeMask = 1<<timeBits - 1
	genMax   = 1<<(63-timeBits) - 1
)

// token returns the Token of a Permit the period p issues now.
func (b *Breaker) token(p *period) uint64 {
	if b.cfg.slow.after == 0 {
		return p.gen
	}
	return slowGen(p.gen)<<timeBits | b.micros()&timeMask
}

// slowGen is gen as a slow-call Token holds it: never 0, so that a zero
// Permit matches no period.
func slowGen(gen uint64) uint64 { return (gen-1)%genMax + 1 }

// micros reads the clock, in microseconds from the rule's base.
func (b *Breaker) micros() uint64 {
	return uint64(b.cfg.clock.Now().Sub(b.cfg.slow.base).Microseconds())
}

// issued reports whether the period p issued a Permit of token.
func (b *Breaker) issued(p *period, token uint64) bool {
	if b.cfg.slow.after == 0 {
		return p.gen == token
	}
	return slowGen(p.gen) == token>>timeBits
}

// slow reports whether the call admitted with token, ending now, was slow:
// false without the slow-call rule.
func (b *Breaker) slow(token uint64) bool {
	if b.cfg.slow.after == 0 {
		return false
	}
	took := (b.micros() - token) & timeMask // < 2^40 µs: no overflow in ns
	return time.Duration(took)*time.Microsecond > b.cfg.slow.after
}
