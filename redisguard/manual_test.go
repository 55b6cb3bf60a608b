package redisguard

import (
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
)

// controller is the manual control of a breaker, local or shared, as an
// operator's endpoint would take it.
type controller interface {
	ForceOpen() error
	ForceClosed() error
	Reset() error
}

var (
	_ controller = (*breaker.Breaker)(nil)
	_ controller = (*Breaker)(nil)
)

// A shared breaker refuses to be forced or reset, as an invalid
// configuration that says why, and is left as it was: no round trip, its
// calls admitted as before.
func TestBreakerRefusesManualControl(t *testing.T) {
	v := newVirtual()
	b := fleet(t, v, 1)[0]
	before := roundTrips(b)
	var ctl controller = b
	for name, force := range map[string]func() error{"ForceOpen": ctl.ForceOpen, "ForceClosed": ctl.ForceClosed, "Reset": ctl.Reset} {
		err := force()
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "shared Breaker cannot be forced") {
			t.Errorf("%s = %v, want ErrInvalidConfiguration saying a shared breaker cannot be forced", name, err)
		}
	}
	if n := roundTrips(b); n != before {
		t.Errorf("the refused controls made %d round trips", n-before)
	}
	if s := b.State(); s != breaker.Closed {
		t.Errorf("State = %v after the refused controls, want closed", s)
	}
	if err := call(b, nil); err != nil {
		t.Errorf("a call after the refused controls = %v, want admitted", err)
	}
	if c := b.Stats().Local; c.Forced != 0 {
		t.Errorf("the local fallback was forced: %+v", c)
	}
}

// A Breaker that cannot be used returns its own configuration error.
func TestUnusableBreakerManualControl(t *testing.T) {
	var zero Breaker
	if err := zero.ForceOpen(); err != errZero {
		t.Errorf("ForceOpen on a zero Breaker = %v, want %v", err, errZero)
	}
	bad := NewBreaker(nil, "x")
	if err := bad.Reset(); err == nil || err != bad.Validate() {
		t.Errorf("Reset on a Breaker without a client = %v, want its configuration error %v", err, bad.Validate())
	}
}
