package backoff

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// The driver hands each attempt its facts: its number, the time left
// before the first limit in time, the error and the wait before it. The
// Instrumenter's State carries the same facts.
func TestAttemptFacts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var got []Attempt
		var states []Attempt
		r := NewRetrier(WithBackOff(NewConstantBackOff(time.Second)), WithMaxTries(3), WithMaxElapsedTime(time.Minute),
			WithInstrumenter(stateRecorder(func(s State) { states = append(states, s.Attempt) })))
		err := r.Attempts(ctx, func(ctx context.Context, a Attempt) error {
			got = append(got, a)
			time.Sleep(500 * time.Millisecond)
			return io.EOF
		})
		if !errors.Is(err, ErrExhausted) || len(got) != 3 {
			t.Fatalf("Attempts: %v after %d attempts, want ErrExhausted after 3", err, len(got))
		}
		want := []Attempt{
			{Number: 1, Left: 10 * time.Second},
			{Number: 2, Left: 8500 * time.Millisecond, LastErr: io.EOF, LastDelay: time.Second},
			{Number: 3, Left: 7 * time.Second, LastErr: io.EOF, LastDelay: time.Second},
		}
		for i, w := range want {
			if got[i] != w {
				t.Errorf("attempt %d: %+v, want %+v", i+1, got[i], w)
			}
			if states[i] != w {
				t.Errorf("State of attempt %d: %+v, want %+v", i+1, states[i], w)
			}
		}
	})
}

// Left is 0 for a run with no limit in time, and counts from the time
// budget when it ends first.
func TestAttemptLeft(t *testing.T) {
	var left []time.Duration
	_ = NewRetrier(WithBackOff(&ZeroBackOff{}), WithMaxTries(2), WithMaxElapsedTime(0)).Attempts(context.Background(), func(_ context.Context, a Attempt) error {
		left = append(left, a.Left)
		return io.EOF
	})
	if len(left) != 2 || left[0] != 0 || left[1] != 0 {
		t.Errorf("Left with no limit in time: %v, want [0 0]", left)
	}
	synctest.Test(t, func(t *testing.T) {
		var a1 Attempt
		_ = NewRetrier(WithMaxElapsedTime(time.Second)).Attempts(context.Background(), func(_ context.Context, a Attempt) error {
			a1 = a
			return nil
		})
		if a1.Left != time.Second {
			t.Errorf("Left under a 1 s time budget: %v, want 1s", a1.Left)
		}
	})
}

// Attempts refuses what it cannot use, by name, and never starts fn once
// ctx is done.
func TestAttemptsBadInput(t *testing.T) {
	var nilR *Retrier
	var nilCtx context.Context // nil, on purpose
	for name, err := range map[string]error{
		"nil Retrier":  nilR.Attempts(context.Background(), func(context.Context, Attempt) error { return nil }),
		"nil context":  NewRetrier().Attempts(nilCtx, func(context.Context, Attempt) error { return nil }),
		"nil function": NewRetrier().Attempts(context.Background(), nil),
	} {
		if !errors.Is(err, ErrInvalidConfiguration) {
			t.Errorf("%s: %v, want ErrInvalidConfiguration", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := NewRetrier().Attempts(ctx, func(context.Context, Attempt) error { ran = true; return nil })
	var e *Error
	if ran || !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Attempts != 0 {
		t.Errorf("a done context: ran=%v, %v; want not run, no attempt counted, context.Canceled", ran, err)
	}
}

// stateRecorder is an Instrumenter that hands each BeforeAttempt's State
// to fn.
type stateRecorder func(State)

func (f stateRecorder) BeforeAttempt(ctx context.Context, s State) context.Context {
	f(s)
	return ctx
}
func (stateRecorder) AfterAttempt(context.Context, State) {}
