package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
)

func TestClassify(t *testing.T) {
	wrapped := func(cause error) error {
		return &url.Error{Op: "Get", URL: "http://127.0.0.1/", Err: &backoff.Error{Cause: cause, Attempts: 2}}
	}
	tests := []struct {
		name string
		err  error
		want cause
	}{
		{"exhausted", &backoff.Error{Cause: backoff.ErrExhausted}, causeExhausted},
		{"max elapsed", &backoff.Error{Cause: backoff.ErrMaxElapsedTime}, causeMaxElapsed},
		{"caller cancelled", &backoff.Error{Cause: errCallerCanceled}, causeCanceled},
		{"caller cancelled, wrapped", &backoff.Error{Cause: fmt.Errorf("bulkhead: %w", errCallerCanceled)}, causeCanceled},
		{"cancelled without the cause", &backoff.Error{Cause: context.Canceled}, causeCanceledNoCause},
		{"deadline", &backoff.Error{Cause: context.DeadlineExceeded}, causeDeadline},
		{"breaker open", &backoff.Error{Cause: &breaker.OpenError{State: breaker.Open}}, causeBreakerOpen},
		{"bulkhead full", &backoff.Error{Cause: bulkhead.ErrBulkheadFull}, causeBulkheadFull},
		{"bulkhead shed", &backoff.Error{Cause: bulkhead.ShedError{Priority: bulkhead.Low}}, causeBulkheadFull},
		{"permanent", &backoff.Error{Cause: backoff.ErrPermanent}, causePermanent},
		{"retries canceled", &backoff.Error{Cause: backoff.ErrRetriesCanceled}, causeRetriesCanceled},
		{"invalid", &backoff.Error{Cause: fmt.Errorf("x: %w", backoff.ErrInvalidConfiguration)}, causeInvalid},
		{"run stopped", &backoff.Error{Cause: errRunStopped}, causeStopped},
		{"another cause", &backoff.Error{Cause: errors.New("something else")}, causeOther},
		{"no cause", &backoff.Error{}, causeOther},
		{"through url.Error", wrapped(backoff.ErrExhausted), causeExhausted},
		{"deadline through url.Error", wrapped(context.DeadlineExceeded), causeDeadline},
		{"not a *backoff.Error", errors.New("plain"), causeNotBackoffError},
		{"context error alone", context.Canceled, causeNotBackoffError},
		{"nil", nil, causeNotBackoffError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e, ok := classify(tt.err)
			if got != tt.want {
				t.Errorf("classify(%v) = %v, want %v", tt.err, got, tt.want)
			}
			if ok != (tt.want != causeNotBackoffError) || ok != (e != nil) {
				t.Errorf("classify(%v): ok %v, *Error %v", tt.err, ok, e)
			}
		})
	}
}

func TestCauseNamesAndBroken(t *testing.T) {
	seen := map[string]bool{}
	for c := range numCauses {
		name := c.String()
		if name == "" || seen[name] {
			t.Errorf("cause %d has the name %q, empty or taken", c, name)
		}
		seen[name] = true
	}
	broken := []cause{causeCanceledNoCause, causeInvalid, causeOther, causeNotBackoffError}
	for c := range numCauses {
		want := false
		for _, b := range broken {
			want = want || b == c
		}
		if c.broken() != want {
			t.Errorf("%v.broken() = %v, want %v", c, c.broken(), want)
		}
	}
}

func TestBodyCause(t *testing.T) {
	alive := context.Background()
	cancelled, cancel := context.WithCancelCause(alive)
	cancel(errCallerCanceled)
	stopped, stop := context.WithCancelCause(alive)
	stop(errRunStopped)
	expired, expire := context.WithDeadline(alive, time.Unix(0, 0))
	defer expire()
	tests := []struct {
		name string
		ctx  context.Context
		want cause
	}{
		{"alive", alive, causeBodyError},
		{"cancelled by the caller", cancelled, causeBodyCanceled},
		{"stopped by the run", stopped, causeStopped},
		{"deadline", expired, causeBodyDeadline},
	}
	for _, tt := range tests {
		if got := bodyCause(tt.ctx); got != tt.want {
			t.Errorf("%s: bodyCause = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTallyCounts(t *testing.T) {
	tl := tally{maxTries: 3}
	for range 6 {
		tl.start()
	}
	tl.finish(outcome{ok: true, attempts: 1, reported: -1})
	tl.finish(outcome{ok: true, attempts: 3, reported: -1})
	tl.finish(outcome{cause: causeExhausted, err: errors.New("x"), attempts: 3, reported: 3})
	tl.finish(outcome{cause: causeDeadline, err: errors.New("slow"), attempts: 2, reported: 1}) // a mismatch
	tl.finish(outcome{cause: causeNotBackoffError, err: errors.New("odd"), attempts: 4, reported: -1})

	c := tl.read()
	if c.Started != 6 || c.Completed != 2 || c.FailedTotal() != 3 {
		t.Fatalf("started %d, completed %d, failed %d; want 6, 2, 3", c.Started, c.Completed, c.FailedTotal())
	}
	if c.InFlight() != 1 || c.Balanced() {
		t.Errorf("with one call in flight: InFlight %d, Balanced %v", c.InFlight(), c.Balanced())
	}
	if c.Failed[causeExhausted] != 1 || c.Failed[causeDeadline] != 1 || c.Failed[causeNotBackoffError] != 1 {
		t.Errorf("failed by cause: %v", c.Failed)
	}
	if c.Mismatch != 1 || c.OverTries != 1 || c.Broken() != 1 {
		t.Errorf("mismatch %d, over tries %d, broken %d; want 1 each", c.Mismatch, c.OverTries, c.Broken())
	}
	if len(c.Samples) != 3 {
		t.Errorf("samples %q: want one for the mismatch, one for the attempts over the limit, one for the broken promise", c.Samples)
	}

	tl.finish(outcome{cause: causeExhausted, attempts: 3, reported: 3})
	if c := tl.read(); !c.Balanced() || c.InFlight() != 0 {
		t.Errorf("every call ended: InFlight %d, Balanced %v", c.InFlight(), c.Balanced())
	}
}

func TestTallySamplesOncePerLabel(t *testing.T) {
	tl := tally{maxTries: 1}
	for i := range 2 * maxSamples {
		tl.start()
		tl.finish(outcome{cause: causeOther, err: fmt.Errorf("odd %d", i), attempts: 1, reported: 1})
	}
	c := tl.read()
	if len(c.Samples) != 1 || !strings.Contains(c.Samples[0], "odd 0") {
		t.Errorf("samples %q: want the first message of the label alone", c.Samples)
	}
}

// TestTallyConcurrent counts from many goroutines at once: the counts add
// up exactly, and a reading taken while calls run never shows more ended
// than started.
func TestTallyConcurrent(t *testing.T) {
	const workers, calls = 16, 500
	tl := tally{maxTries: 4}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerDone := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				readerDone <- nil
				return
			default:
			}
			if c := tl.read(); c.InFlight() < 0 {
				readerDone <- fmt.Errorf("a reading shows %d started and %d ended", c.Started, c.Completed+c.FailedTotal())
				return
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				tl.start()
				if (w+i)%3 == 0 {
					tl.finish(outcome{ok: true, attempts: 1, reported: -1})
				} else {
					tl.finish(outcome{cause: cause(i % int(numCauses)), attempts: 1, reported: 1})
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-readerDone; err != nil {
		t.Error(err)
	}
	c := tl.read()
	if c.Started != workers*calls || !c.Balanced() {
		t.Errorf("started %d, completed %d, failed %d: want %d, balanced", c.Started, c.Completed, c.FailedTotal(), workers*calls)
	}
}
