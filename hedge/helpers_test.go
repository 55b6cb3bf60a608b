package hedge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

var (
	errTransient = errors.New("transient")
	errFatal     = errors.New("fatal")
)

// script is an operation whose attempts the test answers one by one:
// attempt k (from 1) blocks until answer(k, ...) or, if it honours its
// context, until its context is done.
type script struct {
	ignoreCtx bool // attempts wait for their answer even once cancelled

	started atomic.Int32
	answers [8]chan answer
	mu      sync.Mutex
	ctxs    [8]context.Context
	ended   [8]bool
}

type answer struct {
	v   string
	err error
}

func newScript() *script {
	s := &script{}
	for i := range s.answers {
		s.answers[i] = make(chan answer, 1)
	}
	return s
}

func (s *script) op() Op[string] { return Idempotent(s.fn) }

func (s *script) fn(ctx context.Context) (string, error) {
	k := int(s.started.Add(1))
	s.mu.Lock()
	s.ctxs[k] = ctx
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.ended[k] = true
		s.mu.Unlock()
	}()
	if s.ignoreCtx {
		a := <-s.answers[k]
		return a.v, a.err
	}
	select {
	case a := <-s.answers[k]:
		return a.v, a.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// answer makes attempt k return v, err.
func (s *script) answer(k int, v string, err error) { s.answers[k] <- answer{v, err} }

// ctx returns the context attempt k was given.
func (s *script) ctx(k int) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctxs[k]
}

// hasEnded reports whether attempt k has returned.
func (s *script) hasEnded(k int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended[k]
}

// wantStarted fails the test unless n attempts have started.
func (s *script) wantStarted(t *testing.T, n int) {
	t.Helper()
	if got := int(s.started.Load()); got != n {
		t.Fatalf("%d attempts started, want %d", got, n)
	}
}

// wantCanceled fails the test unless attempt k, the one named what, was
// cancelled with ErrCanceled and has returned.
func (s *script) wantCanceled(t *testing.T, k int, what string) {
	t.Helper()
	if cause := context.Cause(s.ctx(k)); cause != ErrCanceled || !s.hasEnded(k) {
		t.Errorf("%s: cause %v (ended: %v), want ErrCanceled and ended", what, cause, s.hasEnded(k))
	}
}

// wantNoMore fails the test unless, an hour later on clk, still only n
// attempts have started.
func (s *script) wantNoMore(t *testing.T, clk *clock.Mock, n int) {
	t.Helper()
	clk.Add(time.Hour)
	synctest.Wait()
	s.wantStarted(t, n)
}

// outcome is how a call through Do ended.
type outcome struct {
	v     string
	err   error
	panic any
}

// scripted starts the script's call on a goroutine of its own: Do with
// a Hedger of delay and 3 attempts on a mock clock, and opts, with no
// inner Policy. It returns the clock, the script and the call's outcome.
func scripted(opts ...Option) (*clock.Mock, *script, <-chan outcome) {
	clk := clock.NewMock()
	s := newScript()
	h := New(append([]Option{WithDelay(delay), WithMaxAttempts(3), WithClock(clk)}, opts...)...)
	return clk, s, goDo(context.Background(), h, nil, s.op())
}

// goDo calls Do on a goroutine of its own.
func goDo(ctx context.Context, h *Hedger, inner *policy.Policy, op Op[string]) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panic = recover()
			done <- o
		}()
		o.v, o.err = Do(ctx, h, inner, op)
	}()
	return done
}

// wantWon fails the test unless the call ends with v and no error.
func wantWon(t *testing.T, done <-chan outcome, v string) {
	t.Helper()
	if o := <-done; o.v != v || o.err != nil {
		t.Fatalf("outcome %+v, want %s", o, v)
	}
}

// pass lets n hedging delays pass on clk, each once every goroutine of the
// bubble waits, and returns once what they started waits too.
func pass(clk *clock.Mock, n int) {
	for range n {
		synctest.Wait()
		clk.Add(delay)
	}
	synctest.Wait()
}

// pending fails the test if the call has ended.
func pending(t *testing.T, done <-chan outcome) {
	t.Helper()
	select {
	case o := <-done:
		t.Fatalf("the call ended early: %+v", o)
	default:
	}
}

// asError returns err as a *backoff.Error, failing the test if it is not.
func asError(t *testing.T, err error) *backoff.Error {
	t.Helper()
	var e *backoff.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *backoff.Error", err, err)
	}
	return e
}

// spyGuard is a test Guard: it admits the calls admit accepts, and records
// what it was asked and told.
type spyGuard struct {
	admit  func(guard.Call) bool
	refuse error

	mu       sync.Mutex
	calls    []guard.Call
	outcomes []guard.Outcome
	permits  []guard.Permit
	next     atomic.Uint64
}

var errBudget = errors.New("budget exhausted")

func (g *spyGuard) Allow(_ context.Context, c guard.Call) (guard.Permit, error) {
	g.mu.Lock()
	g.calls = append(g.calls, c)
	g.mu.Unlock()
	if g.admit != nil && !g.admit(c) {
		if g.refuse != nil {
			return guard.Permit{}, g.refuse
		}
		return guard.Permit{}, errBudget
	}
	return guard.Permit{Token: g.next.Add(1)}, nil
}

func (g *spyGuard) Record(p guard.Permit, o guard.Outcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.permits = append(g.permits, p)
	g.outcomes = append(g.outcomes, o)
}

func (g *spyGuard) snapshot() ([]guard.Call, []guard.Outcome, []guard.Permit) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]guard.Call(nil), g.calls...), append([]guard.Outcome(nil), g.outcomes...), append([]guard.Permit(nil), g.permits...)
}

func refuseAll(guard.Call) bool { return false }
func admitAll(guard.Call) bool  { return true }
