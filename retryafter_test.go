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

// serverPushback is a Pushback of the caller's own, as a gRPC or HTTP
// client would define it.
type serverPushback struct {
	after  time.Duration
	cancel bool
}

func (e *serverPushback) Error() string             { return fmt.Sprintf("pushback %v %v", e.after, e.cancel) }
func (e *serverPushback) RetryAfter() time.Duration { return e.after }
func (e *serverPushback) CancelAllRetries() bool    { return e.cancel }

// Any error in the chain with RetryAfter and CancelAllRetries is honoured:
// its wait replaces the BackOff's, and the sequence starts over after it;
// CancelAllRetries stops at once with ErrRetriesCanceled.
func TestPushbackOfAnyType(t *testing.T) {
	var _ Pushback = (*RetryAfterError)(nil)
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
				_, err = e.run(context.Background(), op.run, WithClock(clk), WithBackOff(specExp(time.Second, time.Minute)))
			})
			if err != nil {
				t.Fatal(err)
			}
			// 1s from the BackOff, 9s from the pushback, then 1s again: the
			// sequence started over.
			if want := []time.Duration{time.Second, 9 * time.Second, time.Second}; !slices.Equal(waits, want) {
				t.Errorf("waits %v, want %v", waits, want)
			}
			op = specScript(func(n int) (int, error) {
				if n == 2 {
					return n, errors.Join(io.EOF, &serverPushback{cancel: true, after: time.Hour})
				}
				return n, attemptErr(n)
			})
			waits = specDrive(t, clk, nil, func() {
				_, err = e.run(context.Background(), op.run, WithClock(clk), WithBackOff(specExp(time.Second, time.Minute)))
			})
			re := specAsError(t, err)
			if !errors.Is(re.Cause, ErrRetriesCanceled) || errors.Is(re.Cause, ErrPermanent) || !errors.Is(re.LastErr, io.EOF) || op.count() != 2 || len(waits) != 1 {
				t.Errorf("%+v after %d attempts and waits %v; want ErrRetriesCanceled with the error after 2 attempts", re, op.count(), waits)
			}
		})
	}
	if err := (&RetryAfterError{Duration: time.Second}); err.RetryAfter() != time.Second || err.CancelAllRetries() {
		t.Error("RetryAfterError's Pushback methods")
	}
}

// The first Pushback of the chain is the one honoured, and a Permanent
// mark beats it.
func TestPushbackPrecedence(t *testing.T) {
	m := findMarks(errors.Join(&serverPushback{after: time.Second}, &serverPushback{cancel: true}))
	if !m.hasAfter || m.after != time.Second || m.cancel {
		t.Errorf("marks %+v, want the first pushback's wait only", m)
	}
	m = findMarks(errors.Join(&serverPushback{cancel: true}, Permanent(io.EOF)))
	if !m.permanent {
		t.Errorf("marks %+v, want the Permanent mark found", m)
	}
	_, err := Retry(func() (int, error) { return 0, errors.Join(&serverPushback{cancel: true}, Permanent(io.EOF)) })
	if re := specAsError(t, err); !errors.Is(re.Cause, ErrPermanent) {
		t.Errorf("Cause %v, want ErrPermanent", re.Cause)
	}
	if IsPermanent(io.EOF) || !IsPermanent(fmt.Errorf("x: %w", Permanent(io.EOF))) || !IsPermanent(errors.Join(io.EOF, Permanent(io.EOF))) {
		t.Error("IsPermanent does not find the mark as the driver does")
	}
}
