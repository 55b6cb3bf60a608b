package mysqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/herdsafe/backoff"
	"go.uber.org/goleak"
)

// The tests run against a real MariaDB server that TestMain starts on a
// free loopback port, in a temporary directory, and stops afterwards. When
// the server binaries are missing, the tests that need them skip, unless
// CI=true or MYSQLRETRY_REQUIRE is set, which make them fail.
var (
	srv       *myServer
	srvReason string
)

// quiet is a mysql.Logger that drops the driver's lines: the tests break
// connections on purpose.
type quiet struct{}

func (quiet) Print(...any) {}

func TestMain(m *testing.M) {
	flag.Parse()
	_ = mysql.SetLogger(quiet{})
	s, err := startMy()
	if err != nil {
		srvReason = err.Error()
		if required() {
			fmt.Fprintln(os.Stderr, "mysqlretry: no MariaDB server:", srvReason)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "mysqlretry: no MariaDB server (%s): the tests that need one skip\n", srvReason)
		_ = flag.Set("test.skip", "^Example")
	} else {
		srv = s
		ExampleDSN = s.dsn("app")
	}
	goleak.VerifyTestMain(run{m})
}

// required reports whether the tests must not skip for want of a server.
func required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("MYSQLRETRY_REQUIRE") != ""
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

// needMy skips t, or fails it when the server is required, if there is
// no server.
func needMy(t testing.TB) {
	t.Helper()
	if srv == nil {
		if required() {
			t.Fatalf("no MariaDB server: %s", srvReason)
		}
		t.Skipf("no MariaDB server: %s", srvReason)
	}
}

// open returns a database/sql handle on the server as user, closed when t
// ends.
func open(t testing.TB, user string) *sql.DB {
	t.Helper()
	needMy(t)
	db, err := sql.Open("mysql", srv.dsn(user))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// mustExec runs statements outside any runner.
func mustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// count returns the integer that q selects.
func count(t testing.TB, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// record keeps what the driver's WithNotify hook reports.
type record struct {
	on    func(error) // called on each, if set
	mu    sync.Mutex
	errs  []error
	waits []time.Duration
}

func (r *record) notify(err error, d time.Duration) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.waits = append(r.waits, d)
	r.mu.Unlock()
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

// numbers returns the server error number of each error, 0 for one
// without.
func numbers(errs []error) []uint16 {
	var out []uint16
	for _, err := range errs {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			out = append(out, me.Number)
		} else {
			out = append(out, 0)
		}
	}
	return out
}

// hasNumber reports whether one of errs is the server's error n.
func hasNumber(errs []error, n uint16) bool {
	for _, got := range numbers(errs) {
		if got == n {
			return true
		}
	}
	return false
}

// barrier lets n goroutines wait for one another once, each for at most a
// while.
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

// background is a context for statements outside the runner.
var background = context.Background()
