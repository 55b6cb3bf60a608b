package telemetry

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	"github.com/herdsafe/backoff/policy"
)

// outcomes is a backoff.Instrumenter that keeps the outcome of each call
// of AfterAttempt, and whether it gave up.
type outcomes struct {
	got []Outcome
	end []bool // State.GivingUp, by call
}

func (o *outcomes) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return ctx
}

func (o *outcomes) AfterAttempt(_ context.Context, s backoff.State) {
	o.got = append(o.got, OutcomeOf(s))
	o.end = append(o.end, s.GivingUp)
}

var errTransient = errors.New("transient")

// failing returns an operation that fails its first n calls.
func failing(n int) func(context.Context) (int, error) {
	calls := 0
	return func(context.Context) (int, error) {
		if calls++; calls <= n {
			return 0, errTransient
		}
		return calls, nil
	}
}

func equalOutcomes(t *testing.T, o *outcomes, want []Outcome, end []bool) {
	t.Helper()
	if len(o.got) != len(want) {
		t.Fatalf("outcomes %v (giving up %v), want %v (%v)", o.got, o.end, want, end)
	}
	for i := range want {
		if o.got[i] != want[i] || o.end[i] != end[i] {
			t.Fatalf("outcomes %v (giving up %v), want %v (%v)", o.got, o.end, want, end)
		}
	}
}

// noWait is the options of a run that does not wait between attempts.
var noWait = backoff.WithBackOff(&backoff.ZeroBackOff{})

func TestOutcomeOfARun(t *testing.T) {
	ctx := context.Background()
	o := &outcomes{}
	if _, err := backoff.Do(ctx, failing(2), noWait, backoff.WithInstrumenter(o)); err != nil {
		t.Fatal(err)
	}
	equalOutcomes(t, o, []Outcome{Failure, Failure, Success}, []bool{false, false, false})

	o = &outcomes{}
	_, err := backoff.Do(ctx, failing(5), noWait, backoff.WithInstrumenter(o), backoff.WithMaxTries(2))
	if !errors.Is(err, backoff.ErrExhausted) {
		t.Fatalf("Do = %v, want ErrExhausted", err)
	}
	equalOutcomes(t, o, []Outcome{Failure, Failure}, []bool{false, true})
}

func TestOutcomeOfARefusal(t *testing.T) {
	o := &outcomes{}
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(3), noWait, backoff.WithInstrumenter(o)),
		policy.Guard(breaker.New(breaker.WithConsecutiveFailures(1))),
	)
	if _, err := policy.Do(context.Background(), p, failing(5)); !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("Do = %v, want ErrCircuitOpen", err)
	}
	equalOutcomes(t, o, []Outcome{Failure, Refused}, []bool{false, true})
}

// Do does not start an attempt once its context is done: the attempt is
// reported, refused, and it is the give-up.
func TestOutcomeOfAnAttemptRefusedByTheContext(t *testing.T) {
	o := &outcomes{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := backoff.Do(ctx, failing(0), backoff.WithInstrumenter(o)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	equalOutcomes(t, o, []Outcome{Refused}, []bool{true})
}

// A give-up after a wait ends no attempt: each attempt has exactly one
// outcome.
func TestOutcomeOfAGiveUpAfterAWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &outcomes{}
		telemetrytest.CancelDuringTheWait(t, context.Background(), func(ctx context.Context) error {
			_, err := backoff.Do(ctx, failing(5), backoff.WithInstrumenter(o),
				backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)))
			return err
		})
		equalOutcomes(t, o, []Outcome{Failure, NoAttempt}, []bool{false, true})
	})
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{NoAttempt: "", Success: "success", Failure: "failure", Refused: "refused"} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", o, got, want)
		}
	}
}

// A State without an attempt number ends no attempt, and the second call of
// an attempt neither.
func TestOutcomeOfStates(t *testing.T) {
	cases := []struct {
		name string
		s    backoff.State
		want Outcome
	}{
		{"no_attempt_number", backoff.State{GivingUp: true, Cause: context.Canceled}, NoAttempt},
		{"reported", backoff.State{Attempt: backoff.Attempt{Number: 2}, Err: errTransient, GivingUp: true, Reported: true}, NoAttempt},
		{"success", backoff.State{Attempt: backoff.Attempt{Number: 1}}, Success},
		{"failure", backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: errTransient}, Failure},
		{"refused", backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: fmt.Errorf("%w: busy", backoff.ErrRefused)}, Refused},
		{"inner_retry_refused", backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: &backoff.Error{Cause: fmt.Errorf("%w: busy", backoff.ErrRefused)}}, Refused},
		{"inner_retry_ran", backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: &backoff.Error{Attempts: 1, LastErr: errTransient, Cause: fmt.Errorf("%w: busy", backoff.ErrRefused)}}, Failure},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OutcomeOf(c.s); got != c.want {
				t.Errorf("OutcomeOf = %v, want %v", got, c.want)
			}
		})
	}
}
