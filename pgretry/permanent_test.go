package pgretry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
)

// Errors that running the transaction again would not change stop the
// runner at the first attempt: an integrity violation (class 23), a syntax
// error (42), a data exception (22), and a statement run in a transaction
// the server had already aborted (25P02), which the error explains.
func TestPermanentErrorsNotRetried(t *testing.T) {
	cases := []struct {
		name, state string
		fn          func(context.Context, querier) error
		aborted     bool
	}{
		{"unique_violation", "23505", func(ctx context.Context, q querier) error {
			return q.exec(ctx, "INSERT INTO perm VALUES (1)")
		}, false},
		{"syntax_error", "42601", func(ctx context.Context, q querier) error {
			return q.exec(ctx, "INSERT INTO perm VALUES")
		}, false},
		{"division_by_zero", "22012", func(ctx context.Context, q querier) error {
			_, err := q.int(ctx, "SELECT 1 / (count(*) - count(*)) FROM perm")
			return err
		}, false},
		{"in_failed_sql_transaction", "25P02", func(ctx context.Context, q querier) error {
			_ = q.exec(ctx, "INSERT INTO perm VALUES (1)") // the error is dropped: the mistake
			return q.exec(ctx, "INSERT INTO perm VALUES (2)")
		}, true},
	}
	for _, m := range modes(t) {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				p := newPool(t)
				mustExec(t, p, "DROP TABLE IF EXISTS perm", "CREATE TABLE perm (id int PRIMARY KEY)", "INSERT INTO perm VALUES (1)")
				rec := &record{}
				calls := 0
				err := m.run(context.Background(), pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec))), func(ctx context.Context, q querier) error {
					calls++
					return c.fn(ctx, q)
				})
				if !errors.Is(err, backoff.ErrPermanent) || calls != 1 || len(rec.retried()) != 0 {
					t.Fatalf("err = %v after %d calls, want a permanent error at once", err, calls)
				}
				if !hasState([]error{err}, c.state) {
					t.Errorf("err = %v, want SQLSTATE %s", err, c.state)
				}
				if got := errors.Is(err, sqlretry.ErrAbortedTransaction); got != c.aborted {
					t.Errorf("errors.Is(err, ErrAbortedTransaction) = %v, want %v", got, c.aborted)
				}
				want := sqlretry.Permanent
				if c.aborted {
					want = sqlretry.Aborted
				}
				if got := pgretry.Classify(err); got != want {
					t.Errorf("Classify = %v, want %v", got, want)
				}
				if n := count(t, p, "SELECT count(*) FROM perm"); n != 1 {
					t.Errorf("%d rows, want the first attempt rolled back", n)
				}
			})
		}
	}
}
