package telemetry

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
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

var bypass = backoff.WithTestingBypass(context.Background())

func TestOutcomeOfARun(t *testing.T) {
	o := &outcomes{}
	if _, err := backoff.Do(bypass, failing(2), backoff.WithInstrumenter(o)); err != nil {
		t.Fatal(err)
	}
	equalOutcomes(t, o, []Outcome{Failure, Failure, Success}, []bool{false, false, false})

	o = &outcomes{}
	_, err := backoff.Do(bypass, failing(5), backoff.WithInstrumenter(o), backoff.WithMaxTries(2))
	if !errors.Is(err, backoff.ErrExhausted) {
		t.Fatalf("Do = %v, want ErrExhausted", err)
	}
	equalOutcomes(t, o, []Outcome{Failure, Failure}, []bool{false, true})
}

func TestOutcomeOfARefusal(t *testing.T) {
	o := &outcomes{}
	policy := backoff.NewPolicy(
		backoff.WithRetry(backoff.WithMaxTries(3), backoff.WithInstrumenter(o)),
		backoff.WithGuard(breaker.New(breaker.WithConsecutiveFailures(1))),
	)
	if _, err := backoff.Execute(bypass, policy, failing(5)); !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("Execute = %v, want ErrCircuitOpen", err)
	}
	equalOutcomes(t, o, []Outcome{Failure, Refused}, []bool{false, true})
}

// A give-up before the first attempt, and one after a wait, end no
// attempt: each attempt has exactly one outcome.
func TestOutcomeOfAGiveUpOutsideAnAttempt(t *testing.T) {
	o := &outcomes{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := backoff.Do(ctx, failing(0), backoff.WithInstrumenter(o)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	equalOutcomes(t, o, []Outcome{NoAttempt}, []bool{true})

	synctest.Test(t, func(t *testing.T) {
		o := &outcomes{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := backoff.Do(ctx, failing(5), backoff.WithInstrumenter(o),
				backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)))
			done <- err
		}()
		synctest.Wait() // the run waits before its second attempt
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Do = %v, want context.Canceled", err)
		}
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
