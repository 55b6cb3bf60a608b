package backoff

import "testing"

// A ZeroBackOff never waits, and never stops on its own.
func TestZeroBackOff(t *testing.T) {
	b := &ZeroBackOff{}
	for range 3 {
		if got := b.NextBackOff(); got != 0 {
			t.Fatalf("NextBackOff() = %v, want 0", got)
		}
	}
	b.Reset()
	if b.Clone() != BackOff(b) {
		t.Error("Clone returned a copy; a ZeroBackOff has no state")
	}
}
