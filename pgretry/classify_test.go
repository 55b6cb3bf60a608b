package pgretry_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The table of SQLSTATEs, including those the server tests cannot
// provoke on one server (crash_shutdown, cannot_connect_now at startup).
// The tests beside it provoke the others for real.
func TestClassify(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: code}) }
	cases := []struct {
		err  error
		want sqlretry.Class
	}{
		{nil, sqlretry.Unknown},
		{errors.New("mine"), sqlretry.Unknown},
		{context.Canceled, sqlretry.Unknown},
		{context.DeadlineExceeded, sqlretry.Unknown},
		{pg("40001"), sqlretry.Retry},
		{pg("40P01"), sqlretry.Retry},
		{pg("55P03"), sqlretry.Retry},
		{pg("53300"), sqlretry.Retry},
		{pg("57P03"), sqlretry.Retry},
		{pg("57P01"), sqlretry.Connection},
		{pg("57P02"), sqlretry.Connection},
		{pg("08006"), sqlretry.Connection},
		{pg("08001"), sqlretry.Connection},
		{pg("25006"), sqlretry.ReadOnly},
		{pg("25P02"), sqlretry.Aborted},
		{pgx.ErrTxCommitRollback, sqlretry.Aborted},
		{pg("23505"), sqlretry.Permanent},
		{pg("23503"), sqlretry.Permanent},
		{pg("42601"), sqlretry.Permanent},
		{pg("22012"), sqlretry.Permanent},
		{pg("57014"), sqlretry.Permanent},
		{pg("28P01"), sqlretry.Permanent},
		{io.EOF, sqlretry.Connection},
		{io.ErrUnexpectedEOF, sqlretry.Connection},
		{driver.ErrBadConn, sqlretry.Unsent},
		{syscall.ECONNRESET, sqlretry.Connection},
		{pgconn.ErrConnClosed, sqlretry.Connection},
	}
	for _, c := range cases {
		if got := pgretry.Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
		wantRetry := c.want == sqlretry.Retry || c.want == sqlretry.Connection || c.want == sqlretry.ReadOnly || c.want == sqlretry.Unsent
		if got := pgretry.Retryable(c.err); got != wantRetry {
			t.Errorf("Retryable(%v) = %v, want %v", c.err, got, wantRetry)
		}
	}
}

// refuseBegin is a Beginner the test must not reach.
type refuseBegin struct{ t *testing.T }

func (r refuseBegin) BeginTx(context.Context, pgx.TxOptions) (pgx.Tx, error) {
	r.t.Error("BeginTx called")
	return nil, errors.New("no")
}

// An isolation level PostgreSQL lacks, a nil Beginner, and a runner that
// cannot run are refused before anything begins.
func TestRunInvalidConfiguration(t *testing.T) {
	fn := func(context.Context, pgx.Tx) error { return nil }
	for name, err := range map[string]error{
		"snapshot":     pgretry.Run(context.Background(), pgretry.NewRunner(sqlretry.WithIsolation(sql.LevelSnapshot)), refuseBegin{t}, fn),
		"linearizable": pgretry.Run(context.Background(), pgretry.NewRunner(sqlretry.WithIsolation(sql.LevelLinearizable)), refuseBegin{t}, fn),
		"nil beginner": pgretry.Run(context.Background(), pgretry.NewRunner(), nil, fn),
		"nil runner":   pgretry.Run(context.Background(), nil, refuseBegin{t}, fn),
		"nil function": pgretry.Run(context.Background(), pgretry.NewRunner(), refuseBegin{t}, nil),
	} {
		if !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Errorf("%s: %v, want an invalid configuration", name, err)
		}
	}
}
