package pgretry_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"go.uber.org/goleak"
)

// The tests run against a real PostgreSQL server that TestMain starts on a
// free loopback port, in a temporary directory, and stops afterwards. When
// the server binaries are missing, the tests that need them skip, unless
// CI=true or PGRETRY_REQUIRE is set, which make them fail.
var (
	srv       *pgServer
	srvReason string
)

func TestMain(m *testing.M) {
	flag.Parse()
	s, err := startPG()
	if err != nil {
		srvReason = err.Error()
		if required() {
			fmt.Fprintln(os.Stderr, "pgretry: no PostgreSQL server:", srvReason)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "pgretry: no PostgreSQL server (%s): the tests that need one skip\n", srvReason)
		_ = flag.Set("test.skip", "^Example")
	} else {
		srv = s
		ExampleConnString = s.connString()
	}
	goleak.VerifyTestMain(run{m})
}

// required reports whether the tests must not skip for want of a server.
func required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("PGRETRY_REQUIRE") != ""
}

// run stops the server after the tests, before goleak looks.
type run struct{ m *testing.M }

func (r run) Run() int {
	code := r.m.Run()
	if srv != nil {
		srv.close()
	}
	return code
}

// needPG skips t, or fails it when the server is required, if there is
// no server.
func needPG(t testing.TB) {
	t.Helper()
	if srv == nil {
		if required() {
			t.Fatalf("no PostgreSQL server: %s", srvReason)
		}
		t.Skipf("no PostgreSQL server: %s", srvReason)
	}
}

// newPool returns a pgxpool on the server, closed when t ends.
func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	needPG(t)
	p, err := pgxpool.New(context.Background(), srv.connString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// poolOf returns a pgxpool on connString, closed when t ends.
func poolOf(t testing.TB, connString string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), connString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// dbOf returns a database/sql handle on connString, closed when t ends.
func dbOf(t testing.TB, connString string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", connString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// pgxConnect opens one pgx connection on connString.
func pgxConnect(connString string) (*pgx.Conn, error) {
	return pgx.Connect(context.Background(), connString)
}

// newDB returns a database/sql handle on the server through pgx's stdlib
// driver, closed when t ends.
func newDB(t testing.TB) *sql.DB {
	t.Helper()
	needPG(t)
	db, err := sql.Open("pgx", srv.connString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// mustExec runs statements on the server outside any runner.
func mustExec(t testing.TB, p *pgxpool.Pool, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := p.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// record keeps what the driver's WithNotify hook reports: the error of
// each attempt retried, and the wait before the next.
type record struct {
	on    func(error) // called on each, if set
	mu    sync.Mutex
	errs  []error
	waits []time.Duration
}

func (r *record) notify(err error, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
	r.waits = append(r.waits, d)
	if r.on != nil {
		r.on(err)
	}
}

func (r *record) retried() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// retrier returns a Retrier with short waits that reports to rec.
func retrier(rec *record, opts ...backoff.RetryOption) *backoff.Retrier {
	base := []backoff.RetryOption{
		backoff.WithBackOff(backoff.NewExponentialBackOff(backoff.WithInitialInterval(5*time.Millisecond), backoff.WithMaxInterval(200*time.Millisecond))),
		backoff.WithMaxTries(20),
		backoff.WithNotify(rec.notify),
	}
	return backoff.NewRetrier(append(base, opts...)...)
}
