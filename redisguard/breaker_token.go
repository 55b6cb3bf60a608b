package redisguard

import "time"

// A Breaker's Permit.Token: localBit for a call the local fallback
// admitted (the fallback's own Token in the other bits); otherwise
// paidBit if Allow made a round trip, probeBit for a half-open probe, the
// generation of the shared state in genBits bits (see genTag), and with
// the slow-call rule the microseconds from the Breaker's base to Allow,
// modulo 2^timeBits, above them.
const (
	paidBit  = 1 // Allow made a round trip
	probeBit = 2 // a half-open probe

	genShift  = 2
	genBits   = 22
	genMod    = 1<<genBits - 1 // the tags of the generations, from 1
	timeShift = genShift + genBits
	timeBits  = 63 - timeShift // 39: about 6 days
	timeMask  = 1<<timeBits - 1
)

// genTag is generation gen as a Permit holds it: never 0, so that a zero
// Permit matches no generation.
func genTag(gen uint64) uint64 { return (gen-1)%genMod + 1 }

// genOf returns the generation whose tag is tag, the latest at most cur.
func genOf(tag, cur uint64) uint64 {
	return cur - (genTag(cur)+genMod-tag)%genMod
}

// token returns the Token of a Permit of generation gen issued at now,
// which only the slow-call rule reads.
func (b *Breaker) token(gen uint64, now time.Time) uint64 {
	t := genTag(gen) << genShift
	if b.rule.SlowAfter > 0 {
		t |= b.micros(now) << timeShift
	}
	return t
}

// micros returns now in microseconds from the base, modulo 2^timeBits.
func (b *Breaker) micros(now time.Time) uint64 {
	return uint64(now.Sub(b.base).Microseconds()) & timeMask
}

// slow reports whether the call admitted with token, ending now, was slow:
// false without the slow-call rule.
func (b *Breaker) slow(token uint64) bool {
	if b.rule.SlowAfter == 0 {
		return false
	}
	took := (b.micros(b.cfg.clock.Now()) - token>>timeShift) & timeMask
	return time.Duration(took)*time.Microsecond > b.rule.SlowAfter
}
