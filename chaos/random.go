package chaos

import "sync/atomic"

// Seeded returns a source of draws for [Config].Rand, uniform in [0, 1),
// determined by seed: the k-th draw of two sources with the same seed is
// the same. Calls made one after another through two Injectors with the
// same seed and Config are therefore injected alike; under concurrent
// calls the same draws are dealt out, in the order the scheduler picks.
//
// It is safe for concurrent use and takes no lock: the k-th draw is the
// SplitMix64 output for the state seed + k·γ, counted with one atomic add
// (the generator of Steele, Lea and Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014, with the output mix of Vigna's
// splitmix64.c, Stafford's Mix13). It is meant for tests and game days,
// not for anything that needs unpredictable numbers.
func Seeded(seed uint64) func() float64 {
	var k atomic.Uint64
	return func() float64 {
		return float64(splitmix64(seed+k.Add(1)*golden)>>11) / (1 << 53)
	}
}

// golden is SplitMix64's increment γ, the odd integer nearest 2^64/φ.
const golden = 0x9e3779b97f4a7c15

// splitmix64 is SplitMix64's output function: it mixes the bits of a state
// into a well-distributed 64-bit number.
func splitmix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
