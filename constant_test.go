package backoff

import (
	"errors"
	"testing"
	"time"
)

// A ConstantBackOff waits its Interval every time, and Reset changes
// nothing; a negative Interval is reported by Validate and, called anyway,
// returns Stop rather than a negative wait.
func TestConstantBackOff(t *testing.T) {
	b := NewConstantBackOff(time.Second)
	for i := range 3 {
		if got := b.NextBackOff(); got != time.Second {
			t.Fatalf("wait %d: %v, want 1s", i+1, got)
		}
		b.Reset()
	}
	if err := b.Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
	if b.Clone() != BackOff(b) {
		t.Error("Clone returned a copy; a ConstantBackOff has no state to copy, so it may be shared")
	}
	neg := &ConstantBackOff{Interval: -time.Second}
	if got := neg.NextBackOff(); got != Stop {
		t.Errorf("a negative ConstantBackOff returned %v, want Stop", got)
	}
	if err := neg.Validate(); !errors.Is(err, ErrInvalidConfiguration) {
		t.Errorf("a negative ConstantBackOff: Validate() = %v, want ErrInvalidConfiguration", err)
	}
}
