package pgretry_test

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is a transaction of either kind, as the tests use it.
type querier interface {
	exec(ctx context.Context, q string, args ...any) error
	int(ctx context.Context, q string, args ...any) (int64, error)
}

type pgxQ struct{ tx pgx.Tx }

func (q pgxQ) exec(ctx context.Context, s string, args ...any) error {
	_, err := q.tx.Exec(ctx, s, args...)
	return err
}

func (q pgxQ) int(ctx context.Context, s string, args ...any) (int64, error) {
	var n int64
	err := q.tx.QueryRow(ctx, s, args...).Scan(&n)
	return n, err
}

type sqlQ struct{ tx *sql.Tx }

func (q sqlQ) exec(ctx context.Context, s string, args ...any) error {
	_, err := q.tx.ExecContext(ctx, s, args...)
	return err
}

func (q sqlQ) int(ctx context.Context, s string, args ...any) (int64, error) {
	var n int64
	err := q.tx.QueryRowContext(ctx, s, args...).Scan(&n)
	return n, err
}

// mode runs a function in a transaction of one of the two APIs.
type mode struct {
	name string
	run  func(ctx context.Context, r *sqlretry.Runner, fn func(context.Context, querier) error) error
}

// modes returns the two ways of running a transaction on the server:
// pgx natively, with a pgxpool, and database/sql with pgx's stdlib driver.
func modes(t *testing.T) []mode {
	pool, db := newPool(t), newDB(t)
	return []mode{
		{"pgx", func(ctx context.Context, r *sqlretry.Runner, fn func(context.Context, querier) error) error {
			return pgretry.Run(ctx, r, pool, func(ctx context.Context, tx pgx.Tx) error { return fn(ctx, pgxQ{tx}) })
		}},
		{"database/sql", func(ctx context.Context, r *sqlretry.Runner, fn func(context.Context, querier) error) error {
			return r.Run(ctx, db, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, sqlQ{tx}) })
		}},
	}
}

// barrier lets n goroutines wait for one another once, each for at most a
// while (a goroutine retried after the conflict does not wait again).
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, arrived: make(chan struct{})} }

func (b *barrier) wait() {
	b.mu.Lock()
	b.n--
	if b.n == 0 {
		close(b.arrived)
	}
	b.mu.Unlock()
	select {
	case <-b.arrived:
	case <-time.After(5 * time.Second):
	}
}

// sqlstates returns the SQLSTATE of each error, "" for one without.
func sqlstates(errs []error) []string {
	var out []string
	for _, err := range errs {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			out = append(out, pe.Code)
		} else {
			out = append(out, "")
		}
	}
	return out
}

// hasState reports whether one of errs has the SQLSTATE code.
func hasState(errs []error, code string) bool {
	for _, s := range sqlstates(errs) {
		if s == code {
			return true
		}
	}
	return false
}

// attemptsOf returns the Attempts of a *backoff.Error, or 0.
func attemptsOf(err error) int {
	var be *backoff.Error
	if errors.As(err, &be) {
		return be.Attempts
	}
	return 0
}

// count returns the number of rows of table.
func count(t testing.TB, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }
