// Package telemetrytest holds what the tests of the repository's
// Instrumenters (otelbackoff, prombackoff, slogbackoff) and of package
// telemetry share, written once: the checks of what each Instrumenter
// promises alike of its Named method, of its Observe methods and of an
// Instrumenter that its New did not make, and the guards and errors the
// tests report on.
//
// It does not import package telemetry, whose own tests use it.
package telemetrytest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// Instrumenter is what the Instrumenters of the repository offer.
type Instrumenter interface {
	backoff.Instrumenter
	Named(name string) backoff.Instrumenter
}

// NotMadeByNew checks that every method of in, an Instrumenter that New
// did not make (a nil or zero one), panics with a message that says so.
func NotMadeByNew(t *testing.T, in Instrumenter) {
	t.Helper()
	for name, use := range map[string]func(){
		"BeforeAttempt": func() { in.BeforeAttempt(context.Background(), backoff.State{Attempt: backoff.Attempt{Number: 1}}) },
		"AfterAttempt":  func() { in.AfterAttempt(context.Background(), backoff.State{Attempt: backoff.Attempt{Number: 1}}) },
		"Named":         func() { in.Named("fetch") },
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, "not made by New") {
					t.Errorf("%s: recovered %q, want the package's message", name, v)
				}
			}()
			use()
		}()
	}
}

// NamedOnce checks that concurrent calls of Named with one name, a name
// seen for the first time, all return one Instrumenter.
func NamedOnce(t *testing.T, in Instrumenter, name string) {
	t.Helper()
	got := make([]backoff.Instrumenter, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = in.Named(name) })
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("goroutine %d received another Instrumenter than goroutine 0", i)
		}
	}
}

// Registration is what the Observe methods of both modules return.
type Registration interface{ Unregister() error }

// Observer is the Observe methods of both telemetry modules, whose
// Registration is R: the same names, arguments and registration, so that
// a user moves from one to the other without rewriting a call. The guard
// of ObserveShared is a SharedGuard, spelled out as the interface it is.
type Observer[R Registration] interface {
	Observe(name string, g guard.Describer) (R, error)
	ObserveShared(name string, g interface{ Fallback() (bool, uint64, uint64) }) (R, error)
}

// Observe checks what the Observe methods of in, an Instrumenter of the
// package pkg ("otelbackoff"), promise alike: a nil guard (typed or not)
// and an empty name are reported as backoff.ErrInvalidConfiguration, both
// named, in the package's words; a name is taken for a guard of one kind
// until its Registration is unregistered, which stops the observation;
// and a second Unregister does nothing. states(name) returns how many
// series of the breaker state metric the guard name has when collected.
func Observe[R Registration](t *testing.T, in Observer[R], pkg string, states func(guard string) int) {
	t.Helper()
	type observe func() (R, error)
	for name, c := range map[string]struct {
		observe observe
		says    []string
	}{
		"nil":                   {func() (R, error) { return in.Observe("b", nil) }, []string{"Observe was given a nil guard"}},
		"nil_breaker":           {func() (R, error) { return in.Observe("b", (*breaker.Breaker)(nil)) }, []string{"Observe was given a nil guard"}},
		"nil_bulkhead":          {func() (R, error) { return in.Observe("b", (*bulkhead.Bulkhead)(nil)) }, []string{"Observe was given a nil guard"}},
		"nil_priority_bulkhead": {func() (R, error) { return in.Observe("b", (*bulkhead.PriorityBulkhead)(nil)) }, []string{"nil guard"}},
		"nil_budget":            {func() (R, error) { return in.Observe("b", (*budget.Budget)(nil)) }, []string{"nil guard"}},
		"nil_throttle":          {func() (R, error) { return in.Observe("b", (*throttle.Throttle)(nil)) }, []string{"nil guard"}},
		"nil_limiter":           {func() (R, error) { return in.Observe("b", (*limiter.Limiter)(nil)) }, []string{"Observe was given a nil guard"}},
		"nil_shared":            {func() (R, error) { return in.ObserveShared("b", nil) }, []string{"nil guard"}},
		"typed_nil_shared":      {func() (R, error) { return in.ObserveShared("b", (*Shared)(nil)) }, []string{"nil guard"}},
		"empty_name":            {func() (R, error) { return in.Observe("", breaker.New()) }, []string{"empty name"}},
		"both":                  {func() (R, error) { return in.Observe("", (*budget.Budget)(nil)) }, []string{"nil guard", "empty name"}},
	} {
		_, err := c.observe()
		for _, says := range c.says {
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), pkg+": ") || !strings.Contains(err.Error(), says) {
				t.Errorf("%s: %v; want an ErrInvalidConfiguration of %s saying %q", name, err, pkg, says)
			}
		}
	}

	reg, err := in.Observe("payments", breaker.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Observe("payments", breaker.New()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a second breaker named payments: %v, want ErrInvalidConfiguration", err)
	}
	for i, observe := range []observe{
		func() (R, error) { return in.Observe("payments", bulkhead.New(1)) },
		func() (R, error) { return in.Observe("payments", budget.NewTokenBucket()) },
		func() (R, error) { return in.Observe("payments", throttle.New()) },
		func() (R, error) { return in.Observe("payments", limiter.New()) },
		func() (R, error) { return in.ObserveShared("payments", &Shared{}) },
	} {
		if _, err := observe(); err != nil {
			t.Errorf("guard %d of another kind named payments: %v", i, err)
		}
	}
	if n := states("payments"); n != 5 {
		t.Errorf("%d series of the breaker state, want 5 (closed, open, half-open, forced-open, forced-closed)", n)
	}
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	if n := states("payments"); n != 0 {
		t.Errorf("after Unregister, %d series of the breaker state, want none", n)
	}
	if err := reg.Unregister(); err != nil {
		t.Errorf("a second Unregister: %v, want nil", err)
	}
	if _, err := in.Observe("payments", breaker.New()); err != nil {
		t.Errorf("after Unregister the name is still taken: %v", err)
	}
}

// Every1s is the options of a retry of in's operation "fetch" with
// one-second waits, and more.
func Every1s(in Instrumenter, more ...backoff.RetryOption) []backoff.RetryOption {
	return append([]backoff.RetryOption{
		backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)),
		backoff.WithInstrumenter(in.Named("fetch")),
	}, more...)
}

// NoWait is the option of a retry that does not wait between attempts.
var NoWait = backoff.WithBackOff(&backoff.ZeroBackOff{})
