package otelbackoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

type testKey struct{}

func TestAttemptValues(t *testing.T) {
	in := &Instrumenter{}
	n, other := in.newNamed("fetch"), in.newNamed("store")
	parent := context.WithValue(context.Background(), testKey{}, "caller's")
	a := &attempt{Context: parent, named: n, n: 2}
	if got := a.Value(attemptKey{n}); got != a {
		t.Errorf("Value(own key) = %v, want the attempt", got)
	}
	if got := a.Value(attemptKey{other}); got != nil {
		t.Errorf("Value(another Instrumenter's key) = %v, want nil", got)
	}
	if got := a.Value(testKey{}); got != "caller's" {
		t.Errorf("Value(the caller's key) = %v, want the caller's value", got)
	}
	if got := n.attemptOf(a, 2); got != a {
		t.Errorf("attemptOf(2) = %v, want the attempt", got)
	}
	for _, k := range []int{0, 1, 3} {
		if got := n.attemptOf(a, k); got != nil {
			t.Errorf("attemptOf(%d) = %v, want nil", k, got)
		}
	}
	if got := other.attemptOf(a, 2); got != nil {
		t.Errorf("another Instrumenter's attemptOf(2) = %v, want nil", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = n.attemptOf(a, 2) }); n != 0 {
		t.Errorf("attemptOf allocates %v times, want 0", n)
	}
}

// The context package's functions see through an attempt to the caller's
// cancellation, deadline and cause.
func TestAttemptCancellation(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.Background(), deadline)
	parent, cancelCause := context.WithCancelCause(parent)
	defer cancel()
	a := &attempt{Context: parent, named: (&Instrumenter{}).newNamed("fetch"), n: 1}
	if d, ok := a.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("Deadline = %v, %v; want the caller's", d, ok)
	}
	child, cancelChild := context.WithCancel(a)
	defer cancelChild()
	called := make(chan struct{})
	stop := context.AfterFunc(a, func() { close(called) })
	defer stop()
	why := errors.New("shutting down")
	cancelCause(why)
	<-child.Done()
	<-called
	if got := context.Cause(child); got != why {
		t.Errorf("Cause = %v, want the caller's cause", got)
	}
}
