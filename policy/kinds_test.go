package policy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

var (
	errTimeout = errors.New("i/o timeout")
	errRefused = errors.New("connection refused")
	errOther   = errors.New("reset by peer")
)

// kindOf is the kind function of the tests.
func kindOf(err error) string {
	switch {
	case errors.Is(err, errTimeout):
		return "timeout"
	case errors.Is(err, errRefused):
		return "refused"
	}
	return ""
}

// limited is a retry stage of no waits and 10 tries in all, with at most 2
// on a timeout and 4 on a connection refused.
func limited(opts ...backoff.RetryOption) *policy.Policy {
	return policy.New(policy.RetryByKind(kindOf, map[string]int{"timeout": 2, "refused": 4},
		append([]backoff.RetryOption{backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(10)}, opts...)...))
}

// failing returns a function that fails with errs in turn, then succeeds,
// and the count of its calls.
func failing(errs ...error) (func(context.Context) error, *int) {
	n := 0
	return func(context.Context) error {
		n++
		if n <= len(errs) {
			return errs[n-1]
		}
		return nil
	}, &n
}

// kindExhausted checks that err stopped a RetryByKind stage on kind after
// tries, with last as the attempt's error, after attempts in all.
func kindExhausted(t *testing.T, err error, kind string, tries int, last error, attempts int) {
	t.Helper()
	re := asError(t, err)
	var ke *policy.KindExhaustedError
	if !errors.Is(re.Cause, backoff.ErrPermanent) || !errors.As(re.LastErr, &ke) {
		t.Fatalf("Cause %v, LastErr %T (%v); want ErrPermanent and a *KindExhaustedError", re.Cause, re.LastErr, re.LastErr)
	}
	if ke.Kind != kind || ke.Tries != tries || ke.Err != last || !errors.Is(err, last) || re.Attempts != attempts {
		t.Fatalf("stopped on %+v after %d attempts, want kind %q after %d tries of it, %d attempts, the error %v",
			ke, re.Attempts, kind, tries, attempts, last)
	}
	if err.Error() != last.Error() {
		t.Errorf("the error prints %q, want the attempt's own %q", err.Error(), last.Error())
	}
}

// The limit of a kind stops the stage at its last try, whatever the
// other kinds have left.
func TestRetryByKindStopsAtTheKindsLimit(t *testing.T) {
	fn, n := failing(errTimeout, errTimeout, errTimeout)
	kindExhausted(t, limited().DoErr(context.Background(), fn), "timeout", 2, errTimeout, 2)
	if *n != 2 {
		t.Errorf("%d attempts, want 2", *n)
	}
}

// Each kind counts its own failures, not in a row: other kinds in between
// do not reset it.
func TestRetryByKindCountsEachKind(t *testing.T) {
	fn, n := failing(errRefused, errTimeout, errOther, errRefused, errRefused, errTimeout)
	kindExhausted(t, limited().DoErr(context.Background(), fn), "timeout", 2, errTimeout, 6)
	if *n != 6 {
		t.Errorf("%d attempts, want 6", *n)
	}
	fn, _ = failing(errRefused, errOther, errRefused, errRefused, errOther, errRefused, errTimeout)
	kindExhausted(t, limited().DoErr(context.Background(), fn), "refused", 4, errRefused, 6)
}

// Within its limits a call retries and succeeds; errors of no limited
// kind are bounded by WithMaxTries alone, which counts every attempt.
func TestRetryByKindWithinTheLimits(t *testing.T) {
	fn, n := failing(errTimeout, errRefused, errRefused, errRefused)
	if err := limited().DoErr(context.Background(), fn); err != nil || *n != 5 {
		t.Fatalf("err %v after %d attempts, want success on the 5th", err, *n)
	}
	fn, _ = failing(errOther, errOther, errOther, errOther, errOther, errOther, errOther, errOther, errOther, errOther, errOther)
	checkStop(t, limited().DoErr(context.Background(), fn), backoff.ErrExhausted, errOther)
	fn, _ = failing(errRefused, errRefused, errRefused)
	err := limited(backoff.WithMaxTries(2)).DoErr(context.Background(), fn)
	if re := checkStop(t, err, backoff.ErrExhausted, errRefused); re.Attempts != 2 {
		t.Errorf("%d attempts, want WithMaxTries' 2 before the kind's 4", re.Attempts)
	}
}

// The counts are a call's own: each call through the shared Policy starts
// afresh, concurrently too.
func TestRetryByKindCountsPerCall(t *testing.T) {
	p := limited()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				fn, n := failing(errTimeout)
				if err := p.DoErr(context.Background(), fn); err != nil || *n != 2 {
					t.Errorf("err %v after %d attempts, want success on the 2nd", err, *n)
					return
				}
			}
		})
	}
	wg.Wait()
}

// What stops the stage anyway is passed on unchanged and not counted:
// a Permanent error, a cancellation of retries, an inner guard's refusal,
// a done context.
func TestRetryByKindLeavesFinalErrorsAlone(t *testing.T) {
	asked := 0
	count := func(err error) string { asked++; return kindOf(err) }
	p := policy.New(policy.RetryByKind(count, map[string]int{"timeout": 1}, backoff.WithBackOff(&backoff.ZeroBackOff{})))
	fn, _ := failing(backoff.Permanent(errTimeout))
	checkStop(t, p.DoErr(context.Background(), fn), backoff.ErrPermanent, errTimeout)
	fn, _ = failing(errors.Join(backoff.ErrRetriesCanceled, errTimeout))
	if re := asError(t, p.DoErr(context.Background(), fn)); !errors.Is(re.Cause, backoff.ErrRetriesCanceled) {
		t.Errorf("Cause %v, want ErrRetriesCanceled", re.Cause)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err := p.DoErr(ctx, func(context.Context) error { cancel(); return errTimeout })
	if re := asError(t, err); !errors.Is(re.Cause, context.Canceled) || re.LastErr != errTimeout {
		t.Errorf("Cause %v, LastErr %v; want the context's cause and the attempt's own error", re.Cause, re.LastErr)
	}
	refusing := policy.New(
		policy.RetryByKind(count, map[string]int{"timeout": 1}, backoff.WithBackOff(&backoff.ZeroBackOff{})),
		policy.Guard(refuser{}),
	)
	if re := asError(t, refusing.DoErr(context.Background(), fn)); !errors.Is(re.Cause, errNoEntry) {
		t.Errorf("Cause %v, want the inner guard's refusal", re.Cause)
	}
	if asked != 0 {
		t.Errorf("kind was asked %d times about errors that stop the stage anyway", asked)
	}
}

var errNoEntry = errors.New("no entry")

// refuser is a guard that refuses every call.
type refuser struct{}

func (refuser) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, errNoEntry
}
func (refuser) Record(guard.Permit, guard.Outcome) {}

// The kinds are checked when the stage is made: the Policy then fails
// every call before running anything.
func TestRetryByKindInvalid(t *testing.T) {
	many := map[string]int{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		many[k] = 1
	}
	for _, c := range []struct {
		name   string
		stage  policy.Stage
		naming string
	}{
		{"nil kind", policy.RetryByKind(nil, map[string]int{"timeout": 1}), "nil kind function"},
		{"no limits", policy.RetryByKind(kindOf, nil), "no limits"},
		{"too many", policy.RetryByKind(kindOf, many), "9 limits; at most 8"},
		{"empty kind", policy.RetryByKind(kindOf, map[string]int{"": 3}), `kind ""`},
		{"zero limit", policy.RetryByKind(kindOf, map[string]int{"timeout": 0}), `limit 0 for the kind "timeout"`},
		{"negative limit", policy.RetryByKind(kindOf, map[string]int{"refused": 2, "timeout": -1}), `limit -1 for the kind "timeout"`},
		{"bad option", policy.RetryByKind(kindOf, map[string]int{"timeout": 1}, backoff.WithBackOff(nil)), "WithBackOff"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ran := false
			err := policy.New(c.stage).DoErr(context.Background(), func(context.Context) error { ran = true; return nil })
			re := asError(t, err)
			if ran || !errors.Is(re.Cause, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.naming) {
				t.Fatalf("ran %v, err %v; want no call and ErrInvalidConfiguration naming %q", ran, err, c.naming)
			}
		})
	}
}

// The mistakes of RetryByKind's arguments are all reported, in the order
// of its parameters: none masks another.
func TestRetryByKindReportsEveryArgument(t *testing.T) {
	err := policy.New(policy.RetryByKind(nil, map[string]int{"timeout": 0}, backoff.WithBackOff(nil))).
		DoErr(context.Background(), func(context.Context) error { return nil })
	re := asError(t, err)
	msg := fmt.Sprint(re.Cause)
	kind, limit, option := strings.Index(msg, "nil kind function"), strings.Index(msg, `limit 0 for the kind "timeout"`), strings.Index(msg, "WithBackOff")
	if !errors.Is(re.Cause, backoff.ErrInvalidConfiguration) || kind < 0 || limit < kind || option < limit {
		t.Errorf("Cause = %q, want the kind function, the limit and the option named, in that order", msg)
	}
}

// A successful call through a RetryByKind stage allocates nothing and does
// not ask the kind.
func TestRetryByKindSuccessAllocatesNothing(t *testing.T) {
	asked := 0
	p := policy.New(policy.RetryByKind(func(error) string { asked++; return "x" }, map[string]int{"x": 2}), policy.Guard(nopGuard{}))
	bare := policy.New(policy.RetryByKind(func(error) string { asked++; return "x" }, map[string]int{"x": 2}))
	ctx := context.Background()
	one := func(context.Context) (int, error) { return 1, nil }
	for _, q := range []*policy.Policy{p, bare} {
		if n := testing.AllocsPerRun(200, func() { _, _ = policy.Do(ctx, q, one) }); n != 0 {
			t.Errorf("%v allocations per successful call, want 0", n)
		}
	}
	if asked != 0 {
		t.Errorf("kind asked %d times on success", asked)
	}
}

// With no attempt limit (WithMaxTries(0)) the kinds' limits still hold:
// the finite and the unbounded stage are one loop.
func TestRetryByKindWithoutMaxTries(t *testing.T) {
	fn, n := failing(errOther, errTimeout, errOther, errOther, errTimeout, errTimeout)
	kindExhausted(t, limited(backoff.WithMaxTries(0)).DoErr(context.Background(), fn), "timeout", 2, errTimeout, 5)
	if *n != 5 {
		t.Errorf("%d attempts, want 5", *n)
	}
}

// recorder is a guard that keeps the outcomes it is told of.
type recorder struct {
	mu  sync.Mutex
	got []guard.Outcome
}

func (r *recorder) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, nil
}

func (r *recorder) Record(_ guard.Permit, o guard.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, o)
}

// A kind function that panics: the panic goes on to the caller, and a
// guard around the stage is told the call panicked.
func TestRetryByKindPanickingKind(t *testing.T) {
	outer := &recorder{}
	p := policy.New(
		policy.Guard(outer),
		policy.RetryByKind(func(error) string { panic("kind") }, map[string]int{"timeout": 2}),
	)
	func() {
		defer func() {
			if r := recover(); r != "kind" {
				t.Fatalf("recovered %v, want the kind function's panic", r)
			}
		}()
		_ = p.DoErr(context.Background(), func(context.Context) error { return errTimeout })
		t.Fatal("no panic")
	}()
	if len(outer.got) != 1 || outer.got[0].Err != guard.ErrPanicked {
		t.Errorf("the outer guard was told %+v, want one record of ErrPanicked", outer.got)
	}
}
