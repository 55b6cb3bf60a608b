// Package guardtest holds the checks that the tests of every guard of the
// repository share: what package guard and package policy promise of a
// guard whose configuration is wrong, written once.
package guardtest

import (
	"context"
	"errors"
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
	ran := false
	perr := policy.New(policy.Guard(g)).DoErr(context.Background(), func(context.Context) error { ran = true; return nil })
	if ran || !errors.Is(perr, backoff.ErrInvalidConfiguration) {
		t.Errorf("a Policy with it: %v (ran %v), want ErrInvalidConfiguration before running", perr, ran)
	}
	return err
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
