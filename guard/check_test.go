package guard_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff/guard"
)

type okGuard struct{}

func (okGuard) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (okGuard) Record(guard.Permit, guard.Outcome)                      {}

type badGuard struct{ okGuard }

var errBad = errors.New("bad setting")

func (*badGuard) Validate() error { return errBad }

// Check tells a nil guard, typed or not, and one whose Validate fails,
// from one that can be used.
func TestCheck(t *testing.T) {
	var typedNil *badGuard
	for _, c := range []struct {
		name    string
		g       guard.Guard
		isNil   bool
		invalid error
	}{
		{"nil", nil, true, nil},
		{"typed nil", typedNil, true, nil},
		{"invalid", &badGuard{}, false, errBad},
		{"usable", okGuard{}, false, nil},
	} {
		isNil, invalid := guard.Check(c.g)
		if isNil != c.isNil || invalid != c.invalid {
			t.Errorf("%s: Check = (%v, %v), want (%v, %v)", c.name, isNil, invalid, c.isNil, c.invalid)
		}
	}
}
