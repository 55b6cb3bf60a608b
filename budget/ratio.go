package budget

import (
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/herdsafe/backoff/internal/window"
)

// The kinds of event the window counts.
const (
	requests = 0 // first attempts
	retries  = 1 // retries admitted
)

// perMillion is the scale of a ratio budget's retry ratio.
const perMillion = 1_000_000

// ratioBudget allows, over its window, retries up to a reserve plus a
// fraction of the first attempts.
type ratioBudget struct {
	w       window.Window
	mu      sync.Mutex    // makes a retry's check and its count one step
	reserve uint64        // retries allowed per window whatever the traffic
	ratio   uint64        // retries allowed per million first attempts
	offset  time.Duration // WithWindowOffset's, for NewRatioFallback
}

// newRatioBudget returns the ratio budget of c, its window empty.
func newRatioBudget(c *config) *ratioBudget {
	r := &ratioBudget{
		// The small excess makes 0.29 per second over 100 s, which float64
		// makes 28.999..., the 29 retries it is.
		reserve: uint64(math.Floor(c.minPerSec*c.window.Seconds() + 1e-9)),
		ratio:   uint64(math.Round(c.retryRatio * perMillion)),
		offset:  c.offset,
	}
	r.w.Init(c.clock, c.window, c.offset)
	return r
}

// deposit counts a first attempt.
func (r *ratioBudget) deposit() {
	r.w.Add(r.w.Epoch(), requests)
}

// withdraw counts a retry and reports true if the window allows one more.
func (r *ratioBudget) withdraw() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.w.Epoch()
	if r.w.Count(e, retries) >= r.allowance(r.w.Count(e, requests)) {
		return false
	}
	r.w.Add(e, retries)
	return true
}

// allowance returns the retries a window with n first attempts allows:
// the reserve plus n times the ratio, rounded down, computed exactly.
func (r *ratioBudget) allowance(n uint64) uint64 {
	hi, lo := bits.Mul64(n, r.ratio)
	// n < 2^36 and ratio <= 1e9 (maxRetryRatio): hi < perMillion.
	q, _ := bits.Div64(hi, lo, perMillion)
	if s, carry := bits.Add64(q, r.reserve, 0); carry == 0 {
		return s
	}
	return math.MaxUint64
}
