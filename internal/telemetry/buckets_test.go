package telemetry

import (
	"slices"
	"testing"
)

func TestWaitBuckets(t *testing.T) {
	b := WaitBuckets()
	if len(b) == 0 || b[0] != 0.005 || b[len(b)-1] != 300 || !slices.IsSorted(b) {
		t.Errorf("WaitBuckets = %v, want ascending bounds from 0.005 to 300 s", b)
	}
	for i := 1; i < len(b); i++ {
		if b[i] == b[i-1] {
			t.Errorf("WaitBuckets repeats %v", b[i])
		}
	}
	b[0] = 7
	if WaitBuckets()[0] != 0.005 {
		t.Error("a change to one result of WaitBuckets shows in the next")
	}
}
