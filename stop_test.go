package backoff

import (
	"errors"
	"testing"
)

// A StopBackOff stops at once: a run makes one attempt, and ends as its
// BackOff said.
func TestStopBackOff(t *testing.T) {
	b := &StopBackOff{}
	if b.NextBackOff() != Stop {
		t.Fatal("StopBackOff did not return Stop")
	}
	b.Reset()
	if b.Clone() != BackOff(b) {
		t.Error("Clone returned a copy; a StopBackOff has no state")
	}
	calls := 0
	err := RetryError(func() error { calls++; return errors.New("down") }, WithBackOff(b))
	var e *Error
	if !errors.As(err, &e) || calls != 1 || e.Attempts != 1 {
		t.Errorf("Retry with a StopBackOff: %v after %d calls, want one attempt and an *Error", err, calls)
	}
}
