package sqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/sqlretry"
)

// These tests hold the runner to its promises with a TxDriver that only
// counts; the server tests of packages pgretry and mysqlretry hold it to
// them against real servers.

// fakeTx is a transaction of fakeDriver.
type fakeTx struct{ n int }

// fakeDriver counts what the runner asks of it, and fails COMMIT with
// commitErrs, one a call, while they last.
type fakeDriver struct {
	begins, commits, rollbacks int
	commitErrs                 []error
	rollbackCtx                context.Context
}

func (d *fakeDriver) Begin(context.Context) (*fakeTx, error) {
	d.begins++
	return &fakeTx{d.begins}, nil
}

func (d *fakeDriver) Commit(context.Context, *fakeTx) error {
	d.commits++
	if len(d.commitErrs) > 0 {
		err := d.commitErrs[0]
		d.commitErrs = d.commitErrs[1:]
		return err
	}
	return nil
}

func (d *fakeDriver) Rollback(ctx context.Context, _ *fakeTx) error {
	d.rollbacks++
	d.rollbackCtx = ctx
	return nil
}

// Errors of each class, as the classifier of the tests tells them.
var (
	errRetry      = errors.New("retry")
	errConnection = errors.New("connection")
	errUnsent     = errors.New("unsent")
	errReadOnly   = errors.New("read-only")
	errAborted    = errors.New("aborted")
	errPermanent  = errors.New("permanent")
)

var classifier = sqlretry.ClassifierFunc(func(err error) sqlretry.Class {
	switch {
	case errors.Is(err, errRetry):
		return sqlretry.Retry
	case errors.Is(err, errConnection):
		return sqlretry.Connection
	case errors.Is(err, errUnsent):
		return sqlretry.Unsent
	case errors.Is(err, errReadOnly):
		return sqlretry.ReadOnly
	case errors.Is(err, errAborted):
		return sqlretry.Aborted
	case errors.Is(err, errPermanent):
		return sqlretry.Permanent
	}
	return sqlretry.Unknown
})

// runner returns a Runner that retries at once, up to 5 attempts.
func runner(opts ...sqlretry.Option) *sqlretry.Runner {
	r := backoff.NewRetrier(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5))
	return sqlretry.New(classifier, append([]sqlretry.Option{sqlretry.WithRetrier(r)}, opts...)...)
}

// Every attempt that fails is rolled back, and the whole function runs
// again in a new transaction, for the classes worth it; the others stop
// the runner at the first attempt, rolled back too.
func TestFunctionErrors(t *testing.T) {
	cases := []struct {
		err      error
		readOnly bool
		calls    int
	}{
		{errRetry, false, 3},
		{errConnection, false, 3},
		{errUnsent, false, 3},
		{errReadOnly, false, 3},
		{errReadOnly, true, 1},
		{errAborted, false, 1},
		{errPermanent, false, 1},
		{errors.New("the caller's own"), false, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v/readOnly=%v", c.err, c.readOnly), func(t *testing.T) {
			var opts []sqlretry.Option
			if c.readOnly {
				opts = append(opts, sqlretry.WithReadOnly())
			}
			d := &fakeDriver{}
			calls := 0
			err := sqlretry.RunTx(context.Background(), runner(opts...), d, func(_ context.Context, tx *fakeTx) error {
				calls++
				if tx.n != calls {
					t.Errorf("call %d got transaction %d, want a new one each call", calls, tx.n)
				}
				if calls < 3 {
					return fmt.Errorf("statement: %w", c.err)
				}
				return nil
			})
			if calls != c.calls {
				t.Fatalf("%d calls, want %d (err %v)", calls, c.calls, err)
			}
			if d.rollbacks != min(calls, 2) || d.begins != calls {
				t.Errorf("%d begins, %d rollbacks, want every failed attempt rolled back", d.begins, d.rollbacks)
			}
			if c.calls == 3 {
				if err != nil || d.commits != 1 {
					t.Errorf("err = %v, %d commits, want one commit", err, d.commits)
				}
				return
			}
			if !errors.Is(err, backoff.ErrPermanent) || !errors.Is(err, c.err) || d.commits != 0 {
				t.Errorf("err = %v, %d commits, want a permanent error wrapping %v", err, d.commits, c.err)
			}
			if got, want := errors.Is(err, sqlretry.ErrAbortedTransaction), c.err == errAborted; got != want {
				t.Errorf("errors.Is(err, ErrAbortedTransaction) = %v, want %v", got, want)
			}
		})
	}
}

// A COMMIT that fails without the server's answer has an unknown outcome:
// not retried unless idempotent (and then only a connection's failure),
// reported as ErrCommitOutcomeUnknown either way, and never rolled back
// (the COMMIT ended the transaction). A COMMIT the server refused, or one
// never sent, did not commit: retried as its class says.
func TestCommitErrors(t *testing.T) {
	cases := []struct {
		err        error
		idempotent bool
		retried    bool
		unknown    bool
	}{
		{errConnection, false, false, true},
		{errConnection, true, true, true},
		{errors.New("no answer"), false, false, true},
		{errors.New("no answer"), true, false, true},
		{context.Canceled, true, false, true},
		{errRetry, false, true, false},
		{errUnsent, false, true, false},
		{errPermanent, true, false, false},
		{errAborted, false, false, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v/idempotent=%v", c.err, c.idempotent), func(t *testing.T) {
			var opts []sqlretry.Option
			if c.idempotent {
				opts = append(opts, sqlretry.WithIdempotent())
			}
			d := &fakeDriver{commitErrs: []error{c.err}}
			var notified []error
			r := backoff.NewRetrier(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5),
				backoff.WithNotify(func(err error, _ time.Duration) { notified = append(notified, err) }))
			calls := 0
			err := sqlretry.RunTx(context.Background(), sqlretry.New(classifier, append(opts, sqlretry.WithRetrier(r))...), d,
				func(context.Context, *fakeTx) error { calls++; return nil })
			if d.rollbacks != 0 {
				t.Errorf("%d rollbacks after COMMIT, want none", d.rollbacks)
			}
			if c.retried {
				if err != nil || calls != 2 || d.commits != 2 {
					t.Fatalf("err = %v after %d calls, %d commits, want success at the second", err, calls, d.commits)
				}
				if got := errors.Is(notified[0], sqlretry.ErrCommitOutcomeUnknown); got != c.unknown {
					t.Errorf("the retried error %v: unknown outcome %v, want %v", notified[0], got, c.unknown)
				}
				return
			}
			if calls != 1 || !errors.Is(err, backoff.ErrPermanent) || !errors.Is(err, c.err) {
				t.Fatalf("err = %v after %d calls, want a permanent error at once", err, calls)
			}
			if got := errors.Is(err, sqlretry.ErrCommitOutcomeUnknown); got != c.unknown {
				t.Errorf("errors.Is(err, ErrCommitOutcomeUnknown) = %v, want %v", got, c.unknown)
			}
		})
	}
}

// A function that panics: its transaction is rolled back, and the panic
// goes on to the caller.
func TestPanicRollsBack(t *testing.T) {
	d := &fakeDriver{}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the function's panic", p)
			}
		}()
		_ = sqlretry.RunTx(context.Background(), runner(), d, func(context.Context, *fakeTx) error { panic("boom") })
	}()
	if d.rollbacks != 1 || d.commits != 0 {
		t.Errorf("%d rollbacks, %d commits, want the transaction rolled back", d.rollbacks, d.commits)
	}
}

// A function that returns nil once the caller's context is done: the
// transaction is rolled back, not committed, on a context of its own that
// the caller's cancellation does not reach but a timeout bounds.
func TestNoCommitAfterCancel(t *testing.T) {
	d := &fakeDriver{}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("the caller stopped")
	err := sqlretry.RunTx(ctx, runner(sqlretry.WithRollbackTimeout(time.Hour)), d, func(context.Context, *fakeTx) error {
		cancel(stop)
		return nil
	})
	if !errors.Is(err, stop) || d.commits != 0 || d.rollbacks != 1 {
		t.Fatalf("err = %v, %d commits, %d rollbacks, want the cause, no commit, a rollback", err, d.commits, d.rollbacks)
	}
	if dl, ok := d.rollbackCtx.Deadline(); !ok || time.Until(dl) < 59*time.Minute {
		t.Errorf("the rollback's deadline %v (%v), want the rollback timeout's", dl, ok)
	}
}

// Settings the runner cannot use are reported before anything begins,
// naming the setting.
func TestInvalidConfiguration(t *testing.T) {
	fn := func(context.Context, *fakeTx) error { return nil }
	var nilRetrier *backoff.Retrier
	var typedNil sqlretry.ClassifierFunc
	cases := []struct {
		name string
		r    *sqlretry.Runner
		want string
	}{
		{"nil classifier", sqlretry.New(nil), "nil Classifier"},
		{"typed nil classifier", sqlretry.New(typedNil), "nil Classifier"},
		{"nil option", sqlretry.New(classifier, nil), "nil Option"},
		{"nil retrier", sqlretry.New(classifier, sqlretry.WithRetrier(nilRetrier)), "WithRetrier"},
		{"invalid retrier", sqlretry.New(classifier, sqlretry.WithRetrier(backoff.NewRetrier(backoff.WithBackOff(nil)))), "WithRetrier"},
		{"isolation", sqlretry.New(classifier, sqlretry.WithIsolation(sql.IsolationLevel(99))), "WithIsolation"},
		{"rollback timeout", sqlretry.New(classifier, sqlretry.WithRollbackTimeout(-time.Second)), "WithRollbackTimeout"},
		{"zero runner", &sqlretry.Runner{}, "not made by New"},
		{"nil runner", nil, "nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &fakeDriver{}
			err := sqlretry.RunTx(context.Background(), c.r, d, fn)
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.want) || d.begins != 0 {
				t.Errorf("err = %v (%d begins), want an invalid configuration naming %q", err, d.begins, c.want)
			}
			if err := c.r.Run(context.Background(), nil, nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
				t.Errorf("Run: err = %v, want an invalid configuration", err)
			}
		})
	}
	r := runner()
	//lint:ignore SA1012 a nil context is what is tested
	if err := sqlretry.RunTx(nil, r, &fakeDriver{}, fn); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil context: %v", err)
	}
	if err := sqlretry.RunTx(context.Background(), r, &fakeDriver{}, nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil function: %v", err)
	}
	var nd *fakeDriver
	if err := sqlretry.RunTx(context.Background(), r, nd, fn); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil driver: %v", err)
	}
	if err := r.Run(context.Background(), (*sql.DB)(nil), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil *sql.DB: %v", err)
	}
}

// The Class names.
func TestClassString(t *testing.T) {
	for c, want := range map[sqlretry.Class]string{sqlretry.Unknown: "unknown", sqlretry.Retry: "retry", sqlretry.Connection: "connection", sqlretry.Class(42): "Class(42)"} {
		if got := c.String(); got != want {
			t.Errorf("%d: %q, want %q", c, got, want)
		}
	}
}

// Ping retries what the classifier calls worth it, and stops at once on
// the rest.
func TestPing(t *testing.T) {
	calls := 0
	err := runner().Ping(context.Background(), func(context.Context) error {
		calls++
		if calls < 3 {
			return errConnection
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err = %v after %d calls, want success at the third", err, calls)
	}
	calls = 0
	err = runner().Ping(context.Background(), func(context.Context) error { calls++; return errPermanent })
	if !errors.Is(err, backoff.ErrPermanent) || calls != 1 {
		t.Fatalf("err = %v after %d calls, want a permanent error at once", err, calls)
	}
	if err := runner().Ping(context.Background(), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil function: %v", err)
	}
	if err := (&sqlretry.Runner{}).Ping(context.Background(), func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("zero Runner: %v", err)
	}
}

// A context already done when the runner is called: nothing begins, and
// the error is the context's.
func TestDoneContextBeginsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &fakeDriver{}
	err := sqlretry.RunTx(ctx, runner(), d, func(context.Context, *fakeTx) error { return nil })
	if !errors.Is(err, context.Canceled) || d.begins != 0 {
		t.Fatalf("err = %v after %d begins, want the context's error and none", err, d.begins)
	}
}

// A runner given no Retrier makes ten attempts, with waits under a bound
// that starts at 50 ms and doubles up to 5 s (virtual time).
func TestDefaultRetrier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &fakeDriver{}
		start := time.Now()
		err := sqlretry.RunTx(context.Background(), sqlretry.New(classifier), d, func(context.Context, *fakeTx) error { return errRetry })
		elapsed := time.Since(start)
		if !errors.Is(err, backoff.ErrExhausted) || d.begins != 10 {
			t.Fatalf("err = %v after %d attempts, want exhausted after 10", err, d.begins)
		}
		const bound = (50 + 100 + 200 + 400 + 800 + 1600 + 3200 + 5000 + 5000) * time.Millisecond
		if elapsed > bound || elapsed == 0 {
			t.Errorf("waited %v in all, want more than nothing and at most %v", elapsed, bound)
		}
	})
}
