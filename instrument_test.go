package backoff

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// specEvent is one call to an Instrumenter.
type specEvent struct {
	method string // "before" or "after"
	s      State
	ctx    context.Context
}

// specInstrumenter records every call, and gives each attempt a context
// carrying its number under specKey.
type specInstrumenter struct {
	mu     sync.Mutex
	events []specEvent
}

func (in *specInstrumenter) BeforeAttempt(ctx context.Context, s State) context.Context {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.events = append(in.events, specEvent{"before", s, ctx})
	return context.WithValue(ctx, specKey{}, s.Number)
}

func (in *specInstrumenter) AfterAttempt(ctx context.Context, s State) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.events = append(in.events, specEvent{"after", s, ctx})
}

// specWantState is what a test expects of one call: the fields it names.
type specWantState struct {
	method    string
	attempt   int
	err       error // matched with errors.Is; nil means State.Err is nil
	elapsed   time.Duration
	nextDelay time.Duration
	givingUp  bool
	cause     error
}

func specCheckEvents(t *testing.T, got []specEvent, want []specWantState, maxTries uint, maxElapsed time.Duration) {
	t.Helper()
	if len(got) != len(want) {
		var b strings.Builder
		for _, e := range got {
			fmt.Fprintf(&b, "\n\t%s %+v", e.method, e.s)
		}
		t.Fatalf("%d calls, want %d:%s", len(got), len(want), b.String())
	}
	for i, w := range want {
		g := got[i]
		s := g.s
		if g.method != w.method || s.Number != w.attempt {
			t.Errorf("call %d: %s attempt %d, want %s attempt %d", i, g.method, s.Number, w.method, w.attempt)
		}
		if (w.err == nil) != (s.Err == nil) || (w.err != nil && !errors.Is(s.Err, w.err)) {
			t.Errorf("call %d: Err = %v, want %v", i, s.Err, w.err)
		}
		if s.Elapsed != w.elapsed {
			t.Errorf("call %d: Elapsed = %v, want %v", i, s.Elapsed, w.elapsed)
		}
		if s.NextDelay != w.nextDelay {
			t.Errorf("call %d: NextDelay = %v, want %v", i, s.NextDelay, w.nextDelay)
		}
		if s.GivingUp != w.givingUp || !errors.Is(s.Cause, w.cause) || (w.cause == nil && s.Cause != nil) {
			t.Errorf("call %d: GivingUp %v Cause %v, want %v %v", i, s.GivingUp, s.Cause, w.givingUp, w.cause)
		}
		if s.MaxTries != maxTries || s.MaxElapsedTime != maxElapsed {
			t.Errorf("call %d: MaxTries %d MaxElapsedTime %v, want %d %v",
				i, s.MaxTries, s.MaxElapsedTime, maxTries, maxElapsed)
		}
	}
}

// The exact sequence for a run that fails twice, then succeeds.
func TestInstrumenterSequenceTwoFailuresThenSuccess(t *testing.T) {
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			in := &specInstrumenter{}
			op := specFailThenSucceed(2)
			var err error
			specDrive(t, clk, nil, func() {
				_, err = e.run(context.Background(), op.Run, WithClock(clk), WithInstrumenter(in),
					WithMaxTries(5), WithMaxElapsedTime(time.Hour), WithBackOff(specExp(time.Second, time.Minute)))
			})
			if err != nil {
				t.Fatal(err)
			}
			s := time.Second
			specCheckEvents(t, in.events, []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), nextDelay: s},
				{method: "before", attempt: 2, elapsed: s},
				{method: "after", attempt: 2, err: attemptErr(2), elapsed: s, nextDelay: 2 * s},
				{method: "before", attempt: 3, elapsed: 3 * s},
				{method: "after", attempt: 3, elapsed: 3 * s},
			}, 5, time.Hour)
		})
	}
}

// Every stop reason ends the sequence with one State that is giving up and
// says why, with the Error's Cause; nothing follows it.
func TestInstrumenterSequenceForEachStopReason(t *testing.T) {
	s := time.Second
	errBad := errors.New("bad request")
	cases := []struct {
		name    string
		opts    []RetryOption
		op      func(cancel context.CancelFunc) *specOp
		react   func(clk *specClock, cancel context.CancelFunc) func(int, time.Duration)
		want    []specWantState
		maxTry  uint
		maxTime time.Duration
	}{
		{
			name: "Permanent",
			op: func(context.CancelFunc) *specOp {
				return specScript(func(n int) (int, error) {
					if n == 2 {
						return n, Permanent(errBad)
					}
					return n, attemptErr(n)
				})
			},
			want: []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), nextDelay: s},
				{method: "before", attempt: 2, elapsed: s},
				{method: "after", attempt: 2, err: errBad, elapsed: s, givingUp: true, cause: ErrPermanent},
			},
			maxTime: DefaultMaxElapsedTime,
		},
		{
			name: "rejected by the classifier",
			opts: []RetryOption{WithRetryable(func(err error) bool { return errors.Is(err, errBad) })},
			op:   func(context.CancelFunc) *specOp { return specAlways() },
			want: []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), givingUp: true, cause: ErrPermanent},
			},
			maxTime: DefaultMaxElapsedTime,
		},
		{
			name: "MaxTries",
			opts: []RetryOption{WithMaxTries(2)},
			op:   func(context.CancelFunc) *specOp { return specAlways() },
			want: []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), nextDelay: s},
				{method: "before", attempt: 2, elapsed: s},
				{method: "after", attempt: 2, err: attemptErr(2), elapsed: s, givingUp: true, cause: ErrExhausted},
			},
			maxTry: 2, maxTime: DefaultMaxElapsedTime,
		},
		{
			name: "BackOff Stop",
			opts: []RetryOption{WithBackOff(&StopBackOff{})},
			op:   func(context.CancelFunc) *specOp { return specAlways() },
			want: []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), givingUp: true, cause: ErrExhausted},
			},
			maxTime: DefaultMaxElapsedTime,
		},
		{
			name: "MaxElapsedTime",
			opts: []RetryOption{WithMaxElapsedTime(1500 * time.Millisecond)},
			op:   func(context.CancelFunc) *specOp { return specAlways() },
			want: []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), nextDelay: s},
				{method: "before", attempt: 2, elapsed: s},
				{method: "after", attempt: 2, err: attemptErr(2), elapsed: s, givingUp: true, cause: ErrMaxElapsedTime},
			},
			maxTime: 1500 * time.Millisecond,
		},
		{
			name: "context cancelled during an attempt",
			op: func(cancel context.CancelFunc) *specOp {
				return specScript(func(n int) (int, error) {
					cancel()
					return n, attemptErr(n)
				})
			},
			want: []specWantState{
				{method: "before", attempt: 1},
				{method: "after", attempt: 1, err: attemptErr(1), givingUp: true, cause: context.Canceled},
			},
			maxTime: DefaultMaxElapsedTime,
		},
	}
	for _, c := range cases {
		for _, e := range specCtxEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				in := &specInstrumenter{}
				op := c.op(cancel)
				opts := append([]RetryOption{WithClock(clk), WithInstrumenter(in),
					WithBackOff(NewConstantBackOff(s))}, c.opts...)
				var err error
				specDrive(t, clk, nil, func() { _, err = e.run(ctx, op.Run, opts...) })
				re := specAsError(t, err)
				specCheckEvents(t, in.events, c.want, c.maxTry, c.maxTime)
				if last := in.events[len(in.events)-1].s; last.Cause != re.Cause {
					t.Errorf("the last State's Cause %v differs from the Error's %v", last.Cause, re.Cause)
				}
			})
		}
	}
}

// A stop that comes during a wait (the context is cancelled) still ends the
// sequence with one State giving up, with the context's cause, after the
// last attempt's own State; no attempt follows.
func TestInstrumenterSequenceWhenCancelledDuringAWait(t *testing.T) {
	for _, e := range specCtxEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			in := &specInstrumenter{}
			op := specAlways()
			var err error
			specDrive(t, clk, specCancelAt(clk, 1, cancel), func() {
				_, err = e.run(ctx, op.Run, WithClock(clk), WithInstrumenter(in), WithBackOff(NewConstantBackOff(time.Second)))
			})
			specCheckStop(t, err, context.Canceled, attemptErr(2))
			var before, givingUp int
			for i, ev := range in.events {
				if ev.method == "before" {
					before++
				}
				if ev.s.GivingUp {
					givingUp++
					if i != len(in.events)-1 {
						t.Errorf("a State giving up is followed by %d more calls", len(in.events)-1-i)
					}
					if ev.s.Cause != context.Canceled || ev.s.Number != 2 {
						t.Errorf("giving up at attempt %d with %v, want attempt 2 with context.Canceled", ev.s.Number, ev.s.Cause)
					}
				}
			}
			if before != 2 || givingUp != 1 {
				t.Errorf("%d attempts and %d States giving up, want 2 and 1", before, givingUp)
			}
		})
	}
}

// "BeforeAttempt(ctx, State) context.Context (may return a derived context,
// so a tracer can open a span per attempt and hand it to fn)": the context
// reaches fn, and AfterAttempt gets the same one to close the span.
func TestInstrumenterContextReachesFn(t *testing.T) {
	in := &specInstrumenter{}
	var seen []any
	_, err := Do(context.Background(), func(ctx context.Context) (int, error) {
		seen = append(seen, ctx.Value(specKey{}))
		if len(seen) < 3 {
			return 0, errors.New("down")
		}
		return 1, nil
	}, WithInstrumenter(in), WithBackOff(&ZeroBackOff{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0] != 1 || seen[1] != 2 || seen[2] != 3 {
		t.Errorf("fn saw %v, want the attempt numbers 1, 2, 3 set by BeforeAttempt", seen)
	}
	for _, ev := range in.events {
		if ev.method != "after" {
			continue
		}
		if got := ev.ctx.Value(specKey{}); got != ev.s.Number {
			t.Errorf("AfterAttempt for attempt %d got a context carrying %v, want BeforeAttempt's", ev.s.Number, got)
		}
	}
}

// Several instrumenters and Notify all keep working together.
func TestInstrumenterAlongsideNotify(t *testing.T) {
	a, b := &specInstrumenter{}, &specInstrumenter{}
	var n specNotify
	op := specFailThenSucceed(2)
	if _, err := Retry(op.Run, WithInstrumenter(a), WithInstrumenter(b), WithNotify(n.Notify), WithBackOff(&ZeroBackOff{})); err != nil {
		t.Fatal(err)
	}
	if len(a.events) != 6 || len(b.events) != 6 || len(n.Errs) != 2 {
		t.Errorf("instrumenters saw %d and %d calls, Notify %d; want 6, 6, 2", len(a.events), len(b.events), len(n.Errs))
	}
}

// Reported tells the second AfterAttempt of an attempt from its first.
func TestInstrumenterReported(t *testing.T) {
	in := &specInstrumenter{}
	ctx, cancel := context.WithCancel(context.Background())
	clk := newSpecClock()
	op := specAlways()
	specDrive(t, clk, specCancelAt(clk, 1, cancel), func() {
		_, _ = RetryCtx(ctx, op.Run, WithClock(clk), WithInstrumenter(in), WithBackOff(NewConstantBackOff(time.Second)))
	})
	var after []State
	for _, e := range in.events {
		if e.method == "after" {
			after = append(after, e.s)
		}
	}
	// attempt 1 retried, attempt 2 retried, then cancelled in its wait.
	if len(after) != 3 || after[0].Reported || after[1].Reported || !after[2].Reported || after[2].Number != 2 || !after[2].GivingUp {
		t.Errorf("AfterAttempt states %+v, want Reported only on the second report of attempt 2", after)
		return
	}
	// The give-up describes the attempt the wait followed, as its first
	// report did, on that attempt's context.
	first, again := after[1], after[2]
	if !errors.Is(again.Err, attemptErr(2)) || !errors.Is(again.LastErr, attemptErr(1)) ||
		again.LastDelay != first.LastDelay || again.LastDelay != time.Second {
		t.Errorf("give-up after the wait: Err %v, LastErr %v, LastDelay %v; want failure 2, failure 1, 1s", again.Err, again.LastErr, again.LastDelay)
	}
	var ctxs []context.Context
	for _, e := range in.events {
		if e.method == "after" {
			ctxs = append(ctxs, e.ctx)
		}
	}
	if got := ctxs[2].Value(specKey{}); got != 2 {
		t.Errorf("the give-up after the wait got a context carrying %v, want attempt 2's", got)
	}
}
