// Package guardtest holds the checks that the tests of every guard of the
// repository share: what package guard and package policy promise of a
// guard whose configuration is wrong, and of a guard's Run, written once.
package guardtest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/herdsafe/backoff/policy"
)

// Guard is a guard that can check its own settings.
type Guard interface {
	guard.Guard
	guard.Validator
}

// Invalid checks that g's Validate reports an error matching
// backoff.ErrInvalidConfiguration whose message holds want, and that a
// Policy with g fails every call before running anything. It returns the
// error.
func Invalid(t testing.TB, g Guard, want string) error {
	t.Helper()
	err := g.Validate()
	if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Validate() = %v, want ErrInvalidConfiguration naming %q", err, want)
	}
	FailsPolicy(t, g)
	return err
}

// FailsPolicy checks that a Policy with g, on its own or inside a retry
// stage, fails every call with an error matching
// backoff.ErrInvalidConfiguration before running anything: g is a guard
// that cannot be used (misconfigured, a zero value, a nil pointer).
func FailsPolicy(t testing.TB, g guard.Guard) {
	t.Helper()
	for _, p := range []struct {
		name string
		p    *policy.Policy
	}{
		{"a Policy with it", policy.New(policy.Guard(g))},
		{"a Policy with it inside a retry stage", policy.New(policy.Retry(), policy.Guard(g))},
	} {
		ran := false
		err := p.p.DoErr(context.Background(), func(context.Context) error { ran = true; return nil })
		if ran || !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Errorf("%s: %v (ran %v), want ErrInvalidConfiguration before running", p.name, err, ran)
		}
	}
}

// Refuses checks that g refuses every call with err, its configuration
// error: Allow returns err itself, for a first attempt and a retry, and
// guard.Run refuses the call with an error that matches backoff.ErrRefused
// and wraps err, without calling fn (unless g is a nil pointer, which
// guard.Run reports itself).
func Refuses(t testing.TB, g guard.Guard, err error) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []guard.Call{{Attempt: 1}, {Attempt: 2}} {
		if _, aerr := g.Allow(ctx, c); aerr != err {
			t.Errorf("Allow(%+v) = %v, want the configuration error %v", c, aerr, err)
		}
	}
	if typednil.Is(g) {
		return // guard.Run reports a nil Guard itself
	}
	ran := false
	rerr := guard.Run(ctx, g, guard.Call{Attempt: 1}, func(context.Context) error { ran = true; return nil })
	if ran || !errors.Is(rerr, err) || !errors.Is(rerr, backoff.ErrRefused) {
		t.Errorf("guard.Run = %v (ran %v), want a refusal with the configuration error, fn not called", rerr, ran)
	}
}

// RefusesNilContext checks that g's Allow refuses a nil context, for a
// first attempt and a retry, with the words of the guards of the package
// pkg ("breaker"), "backoff: invalid configuration: breaker: Allow was
// given a nil context", and no Permit.
func RefusesNilContext(t testing.TB, g guard.Guard, pkg string) {
	t.Helper()
	want := setting.Package(pkg).NilContext().Error()
	for _, attempt := range []int{1, 2} {
		//lint:ignore SA1012 a nil context is what is tested
		p, err := g.Allow(nil, guard.Call{Attempt: attempt})
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || err.Error() != want || p != (guard.Permit{}) {
			t.Errorf("Allow(nil, attempt %d) = %+v, %v; want %q", attempt, p, err, want)
		}
	}
}

// Case is a guard of a test's table, under the name of its subtest.
type Case[G any] struct {
	Name  string
	Guard G
}

// RefusesNilContextUncounted checks, in a subtest for each case, that
// RefusesNilContext holds of its guard, a guard of the package pkg, and
// that the refusals left the guard's counts, as counts reads them, as
// they were.
func RefusesNilContextUncounted[G guard.Guard, C comparable](t *testing.T, pkg string, counts func(G) C, cases []Case[G]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			before := counts(c.Guard)
			RefusesNilContext(t, c.Guard, pkg)
			if after := counts(c.Guard); after != before {
				t.Errorf("the counts are %+v after Allow(nil), want %+v", after, before)
			}
		})
	}
}

// AdmittedAllocs returns the allocations, averaged over runs, of calls
// that g admits and that succeed: Allow with ctx then Record of a success,
// for each of calls in turn (a first attempt if none is given), through
// the guard.Guard interface, as a Policy calls a guard. It fails the test
// if g refuses one of them.
func AdmittedAllocs(t testing.TB, runs int, g guard.Guard, ctx context.Context, calls ...guard.Call) float64 {
	t.Helper()
	if len(calls) == 0 {
		calls = []guard.Call{{Attempt: 1}}
	}
	return testing.AllocsPerRun(runs, func() {
		for _, c := range calls {
			p, err := g.Allow(ctx, c)
			if err != nil {
				t.Fatalf("Allow(%+v) = %v, want the call admitted", c, err)
			}
			g.Record(p, guard.Outcome{})
		}
	})
}

// Runner is a guard with a Run method of its own, as every guard of the
// repository has.
type Runner interface {
	Guard
	Run(ctx context.Context, fn func(context.Context) error) error
}

// RunIsGuardRun checks that the Run method of the guards fresh makes is
// guard.Run, with the counts of a guard read by counts (a comparable
// value): Run calls fn once for an admitted call and returns its error
// itself; it refuses a ctx already done before the guard is asked, with an
// error that matches backoff.ErrRefused and wraps context.Cause(ctx), fn
// not called and nothing counted; it reports a nil ctx and a nil fn both,
// as an error matching backoff.ErrInvalidConfiguration that is no
// refusal; and a panic of fn goes on.
func RunIsGuardRun[G Runner](t *testing.T, fresh func() G, counts func(G) any) {
	t.Helper()
	errStop := errors.New("shutting down")
	done, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)

	g := fresh()
	calls := 0
	if err := g.Run(context.Background(), func(context.Context) error { calls++; return io.EOF }); err != io.EOF || calls != 1 {
		t.Errorf("Run = %v after %d calls, want fn's error after 1", err, calls)
	}

	before := counts(g)
	err := g.Run(done, func(context.Context) error { calls++; return nil })
	if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, errStop) || calls != 1 {
		t.Errorf("Run(done) = %v after %d more calls, want a refusal wrapping the cause, fn not called", err, calls-1)
	}
	if after := counts(g); after != before {
		t.Errorf("Run(done) changed the counts from %+v to %+v: the guard was asked", before, after)
	}

	//lint:ignore SA1012 a nil context is what is tested
	err = g.Run(nil, nil)
	if !errors.Is(err, backoff.ErrInvalidConfiguration) || guard.IsRefusal(err) ||
		!contains(err, "nil context") || !contains(err, "nil function") {
		t.Errorf("Run(nil, nil) = %v, want ErrInvalidConfiguration naming both", err)
	}

	g = fresh()
	if v := recovered(func() { _ = g.Run(context.Background(), func(context.Context) error { panic("boom") }) }); v != "boom" {
		t.Errorf("recovered %v, want fn's panic", v)
	}
}

// recovered runs fn and returns what it panicked with.
func recovered(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }
