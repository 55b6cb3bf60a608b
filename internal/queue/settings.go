package queue

import (
	"time"

	"github.com/herdsafe/backoff/internal/setting"
)

// Settings are what a guard's WithQueue and WithMaxWait options set.
type Settings struct {
	// Size is the most callers queued at once, at most math.MaxInt32; 0
	// is no queue, and a caller that finds the limit reached is refused at
	// once.
	Size int
	// MaxWait bounds the time a queued caller waits; 0 sets no bound.
	MaxWait time.Duration
}

// Check records in *first, in the words of p and unless *first holds an
// error already, that the settings contradict each other: a maximum wait
// without a queue, which no caller would wait.
func (s Settings) Check(p setting.Package, first *error) {
	if s.MaxWait > 0 && s.Size == 0 {
		p.Fail(first, "WithMaxWait(%v) without WithQueue: no caller would wait", s.MaxWait)
	}
}
