package herd

import (
	"context"
	"reflect"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// stageView asks the core what the stages around a guard make of an
// error its Allow returned, so that the simulation's retry loops follow a
// Policy's rules rather than a copy of them: a refusal, which ends the
// call and which the guards outside see marked as one (guard.IsRefusal),
// or the call's own failure (an error marked with guard.Failure), which
// the guards outside see as the call's error and the retry loop retries.
//
// It runs a Policy of two guard stages, a spy outside a guard that
// returns the error, once per question, and remembers the last answer: a
// guard refuses with the same sentinel error time after time. It is kept
// by one simulation and used on its goroutine only.
type stageView struct {
	policy *policy.Policy
	spy    spyGuard
	inner  fixedGuard

	last    error // the last error asked about, if comparable
	outer   error
	refused bool
}

func newStageView() *stageView {
	v := &stageView{}
	v.policy = policy.New(policy.Guard(&v.spy), policy.Guard(&v.inner))
	return v
}

// view returns what a guard outside the one whose Allow returned err
// sees in its Outcome, and whether err refuses the call.
func (v *stageView) view(err error) (outer error, refused bool) {
	comparable := reflect.TypeOf(err).Comparable()
	if comparable && v.last != nil && err == v.last {
		return v.outer, v.refused
	}
	v.inner.err, v.spy.seen = err, nil
	_ = v.policy.DoErr(context.Background(), func(context.Context) error { return nil })
	v.outer, v.refused, v.last = v.spy.seen, guard.IsRefusal(v.spy.seen), nil
	if comparable {
		v.last = err
	}
	return v.outer, v.refused
}

// spyGuard admits every call and keeps the error it is told of.
type spyGuard struct{ seen error }

func (g *spyGuard) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, nil
}
func (g *spyGuard) Record(_ guard.Permit, o guard.Outcome) { g.seen = o.Err }

// fixedGuard answers every Allow with err.
type fixedGuard struct{ err error }

func (g *fixedGuard) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, g.err
}
func (g *fixedGuard) Record(guard.Permit, guard.Outcome) {}
