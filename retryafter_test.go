package backoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"
)

func TestRetryAfterError(t *testing.T) {
	cause := errors.New("rate limited")
	err := RetryAfter(3*time.Second, cause)
	if got := err.Error(); got != "retry after 3s: rate limited" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(err, cause) {
		t.Error("RetryAfterError does not unwrap to its cause")
	}
	if got := RetryAfter(time.Second, nil).Error(); got != "retry after 1s" {
		t.Errorf("without a cause, Error() = %q", got)
	}
	wrapped := fmt.Errorf("call: %w", err)
	m := MarksOf(wrapped)
	if !m.Named || m.Wait != 3*time.Second || m.Last != cause {
		t.Errorf("wrapped: marks %+v, LastErr %v; want the 3s RetryAfterError and its cause", m, m.Last)
	}
	bare := RetryAfter(-time.Second, nil)
	if m := MarksOf(bare); !m.Named || m.Last != bare {
		t.Errorf("causeless: marks %+v, want the RetryAfterError, reported itself", m)
	}
	joined := errors.Join(io.EOF, fmt.Errorf("x: %w", RetryAfter(time.Second, io.ErrClosedPipe)), Permanent(io.ErrNoProgress))
	if m := MarksOf(joined); !m.Permanent || !m.Named {
		t.Errorf("joined: marks %+v, want both found in one walk", m)
	}
}

// serverPushback is a pushback of the caller's own, as a gRPC or HTTP
// client would define it: it names a wait through an As method that gives
// a RetryAfterError, and asks for no further attempt by matching
// ErrRetriesCanceled.
type serverPushback struct {
	after  time.Duration
	cancel bool
}

func (e *serverPushback) Error() string { return fmt.Sprintf("pushback %v %v", e.after, e.cancel) }

func (e *serverPushback) Is(target error) bool { return e.cancel && target == ErrRetriesCanceled }

func (e *serverPushback) As(target any) bool {
	if p, ok := target.(**RetryAfterError); ok && !e.cancel {
		*p = &RetryAfterError{Duration: e.after, err: e}
		return true
	}
	return false
}

// A wait named anywhere in the chain (a RetryAfterError, as errors.As finds
// it) replaces the BackOff's, and the sequence starts over after it; an
// error that matches ErrRetriesCanceled stops at once with that Cause.
func TestPushbackOfAnyType(t *testing.T) {
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			op := specScript(func(n int) (int, error) {
				switch n {
				case 1, 3:
					return n, attemptErr(n)
				case 2:
					return n, fmt.Errorf("wrapped: %w", &serverPushback{after: 9 * time.Second})
				}
				return n, nil
			})
			var err error
			waits := specDrive(t, clk, nil, func() {
				_, err = e.run(context.Background(), op.Run, WithClock(clk), WithBackOff(specExp(time.Second, time.Minute)))
			})
			if err != nil {
				t.Fatal(err)
			}
			// 1s from the BackOff, 9s from the pushback, then 1s again: the
			// sequence started over.
			if want := []time.Duration{time.Second, 9 * time.Second, time.Second}; !slices.Equal(waits, want) {
				t.Errorf("waits %v, want %v", waits, want)
			}
			for _, cancel := range []error{
				errors.Join(io.EOF, &serverPushback{cancel: true, after: time.Hour}),
				fmt.Errorf("%w: %w", ErrRetriesCanceled, io.EOF),
			} {
				op = specScript(func(n int) (int, error) {
					if n == 2 {
						return n, cancel
					}
					return n, attemptErr(n)
				})
				waits = specDrive(t, clk, nil, func() {
					_, err = e.run(context.Background(), op.Run, WithClock(clk), WithBackOff(specExp(time.Second, time.Minute)))
				})
				re := specAsError(t, err)
				if re.Cause != ErrRetriesCanceled || !errors.Is(re.LastErr, io.EOF) || op.Count() != 2 || len(waits) != 1 {
					t.Errorf("%v: %+v after %d attempts and waits %v; want ErrRetriesCanceled with the error after 2 attempts", cancel, re, op.Count(), waits)
				}
			}
		})
	}
}

// The first RetryAfterError of the chain is the one honoured, and a
// Permanent mark beats a cancellation.
func TestPushbackPrecedence(t *testing.T) {
	m := MarksOf(errors.Join(RetryAfter(time.Second, nil), RetryAfter(time.Hour, nil)))
	if !m.Named || m.Wait != time.Second || m.CancelAll {
		t.Errorf("marks %+v, want the first wait only", m)
	}
	m = MarksOf(errors.Join(&serverPushback{cancel: true}, Permanent(io.EOF)))
	if !m.CancelAll || !m.Permanent {
		t.Errorf("marks %+v, want the cancellation and the Permanent mark found", m)
	}
	for _, err := range []error{
		errors.Join(Permanent(io.EOF), &serverPushback{cancel: true}),
		errors.Join(&serverPushback{cancel: true}, Permanent(io.EOF)),
	} {
		_, got := Retry(func() (int, error) { return 0, err })
		if re := specAsError(t, got); !errors.Is(re.Cause, ErrPermanent) {
			t.Errorf("%v: Cause %v, want ErrPermanent", err, re.Cause)
		}
	}
	if MarksOf(io.EOF).Permanent || !errors.Is(fmt.Errorf("x: %w", Permanent(io.EOF)), ErrPermanent) || !errors.Is(errors.Join(io.EOF, Permanent(io.EOF)), ErrPermanent) {
		t.Error("errors.Is does not find the Permanent mark as the driver does")
	}
}

// A RetryAfterError anywhere in the error chain sets the next wait and
// resets the BackOff, so that its sequence starts over after it.
func TestDriverRetryAfterSetsTheWaitAndResetsTheBackOff(t *testing.T) {
	s := time.Second
	cause := errors.New("rate limited")
	chains := []struct {
		name string
		err  func() error
	}{
		{"direct", func() error { return RetryAfter(7*s, cause) }},
		{"wrapped", func() error { return fmt.Errorf("GET /: %w", RetryAfter(7*s, cause)) }},
		{"wrapped twice", func() error {
			return fmt.Errorf("client: %w", fmt.Errorf("GET /: %w", RetryAfter(7*s, cause)))
		}},
		{"joined", func() error { return errors.Join(errors.New("status 429"), RetryAfter(7*s, cause)) }},
	}
	for _, ch := range chains {
		t.Run(ch.name, func(t *testing.T) {
			clk := newSpecClock()
			op := specScript(func(n int) (int, error) {
				switch {
				case n == 3:
					return n, ch.err()
				case n < 6:
					return n, attemptErr(n)
				}
				return 100, nil
			})
			var n specNotify
			var v int
			var err error
			waits := specDrive(t, clk, nil, func() {
				v, err = Retry(op.Run, WithBackOff(specExp(s, time.Minute)), WithClock(clk), WithNotify(n.Notify))
			})
			if err != nil || v != 100 {
				t.Fatalf("got (%d, %v), want success", v, err)
			}
			want := []time.Duration{s, 2 * s, 7 * s, s, 2 * s}
			if !slices.Equal(waits, want) {
				t.Errorf("waits %v, want %v: the RetryAfter wait, then the BackOff from its start", waits, want)
			}
			if !slices.Equal(n.Delays, want) {
				t.Errorf("Notify delays %v, want %v", n.Delays, want)
			}
		})
	}
	t.Run("custom BackOff is Reset", func(t *testing.T) {
		clk := newSpecClock()
		b := &specBackOff{seq: []time.Duration{s, 2 * s, 3 * s}}
		op := specScript(func(n int) (int, error) {
			switch n {
			case 1, 3:
				return n, attemptErr(n)
			case 2:
				return n, RetryAfter(9*s, cause)
			}
			return 100, nil
		})
		var err error
		waits := specDrive(t, clk, nil, func() { _, err = Retry(op.Run, WithBackOff(b), WithClock(clk)) })
		if err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{s, 9 * s, s}; !slices.Equal(waits, want) {
			t.Errorf("waits %v, want %v", waits, want)
		}
		if b.resets != 2 {
			t.Errorf("Reset called %d times, want 2: before the first attempt and for the RetryAfter", b.resets)
		}
	})
}

// marksPermanent is errors.Is(err, ErrPermanent), for an err that is
// itself a sentinel of another package.
