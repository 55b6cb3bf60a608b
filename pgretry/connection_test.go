package pgretry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5/pgxpool"
)

// terminate ends the backend pid from another connection, as an
// administrator's pg_terminate_backend does.
func terminate(t testing.TB, p *pgxpool.Pool, pid int64) {
	t.Helper()
	var ok bool
	if err := p.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Errorf("pg_terminate_backend(%d): %v %v", pid, ok, err)
	}
}

// A backend terminated in the middle of a transaction: the statement after
// fails (admin_shutdown 57P01, or the connection's loss), the transaction
// did not commit, and the runner runs it again on a new connection.
func TestTerminatedBackendRetried(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP TABLE IF EXISTS tb", "CREATE TABLE tb (id int)")
			rec := &record{}
			r := pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
			calls := 0
			err := m.run(context.Background(), r, func(ctx context.Context, q querier) error {
				calls++
				if err := q.exec(ctx, "INSERT INTO tb VALUES (1)"); err != nil {
					return err
				}
				if calls == 1 {
					pid, err := q.int(ctx, "SELECT pg_backend_pid()")
					if err != nil {
						return err
					}
					terminate(t, p, pid)
				}
				return q.exec(ctx, "INSERT INTO tb VALUES (2)")
			})
			if err != nil {
				t.Fatal(err)
			}
			got := rec.retried()
			if len(got) != 1 || calls != 2 {
				t.Fatalf("retried %v in %d calls, want one retry", got, calls)
			}
			if c := pgretry.Classify(got[0]); c != sqlretry.Connection {
				t.Errorf("Classify(%v) = %v, want connection", got[0], c)
			}
			if n := count(t, p, "SELECT count(*) FROM tb"); n != 2 {
				t.Errorf("%d rows, want the 2 of the second attempt only", n)
			}
		})
	}
}

// waitSyncRep terminates the backend pid once its COMMIT waits for the
// standby that never comes, so that the COMMIT is cut off after the
// transaction committed locally.
func waitSyncRep(t testing.TB, p *pgxpool.Pool, pid int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := p.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'SyncRep'", pid).Scan(&n); err != nil {
			t.Error(err)
			return
		}
		if n == 1 {
			terminate(t, p, pid)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Error("the COMMIT never waited for the standby")
}

// A COMMIT cut off by killing its backend while it waits: the transaction
// committed, but the client cannot know. The runner does not run it again
// and says the outcome is unknown; declared idempotent, it runs it again.
func TestCommitCutOff(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP TABLE IF EXISTS pay", "CREATE TABLE pay (id int PRIMARY KEY)")
			cutOff := func(ctx context.Context, q querier) error {
				pid, err := q.int(ctx, "SELECT pg_backend_pid()")
				if err != nil {
					return err
				}
				if err := q.exec(ctx, "SET LOCAL synchronous_commit = on"); err != nil {
					return err
				}
				go waitSyncRep(t, p, pid)
				return q.exec(ctx, "INSERT INTO pay VALUES (1) ON CONFLICT DO NOTHING")
			}

			rec := &record{}
			calls := 0
			err := m.run(context.Background(), pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec))), func(ctx context.Context, q querier) error {
				calls++
				return cutOff(ctx, q)
			})
			if !errors.Is(err, sqlretry.ErrCommitOutcomeUnknown) {
				t.Fatalf("err = %v, want ErrCommitOutcomeUnknown", err)
			}
			if !errors.Is(err, backoff.ErrPermanent) || calls != 1 || len(rec.retried()) != 0 {
				t.Errorf("err = %v after %d calls (retried %v), want no retry", err, calls, rec.retried())
			}
			if n := count(t, p, "SELECT count(*) FROM pay"); n != 1 {
				t.Errorf("%d payments, want the 1 that committed", n)
			}

			mustExec(t, p, "TRUNCATE pay")
			rec, calls = &record{}, 0
			r := pgretry.NewRunner(sqlretry.WithIdempotent(), sqlretry.WithRetrier(retrier(rec)))
			err = m.run(context.Background(), r, func(ctx context.Context, q querier) error {
				calls++
				if calls == 1 {
					return cutOff(ctx, q)
				}
				return q.exec(ctx, "INSERT INTO pay VALUES (1) ON CONFLICT DO NOTHING")
			})
			if err != nil || calls != 2 {
				t.Fatalf("idempotent: err = %v after %d calls, want success at the second", err, calls)
			}
			if got := rec.retried(); len(got) != 1 || !errors.Is(got[0], sqlretry.ErrCommitOutcomeUnknown) {
				t.Errorf("idempotent: retried %v, want the unknown outcome", got)
			}
			if n := count(t, p, "SELECT count(*) FROM pay"); n != 1 {
				t.Errorf("idempotent: %d payments, want 1", n)
			}
		})
	}
}

// A server that went read-only, as a primary that became a standby does:
// writes fail with read_only_sql_transaction (25006) and are retried until
// it takes writes again. A runner that asked for read-only transactions
// itself does not retry them.
func TestReadOnlyServer(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP TABLE IF EXISTS ro", "CREATE TABLE ro (id int)")
			setReadOnly(t, p, true)
			defer setReadOnly(t, p, false)
			var flipped atomic.Bool
			rec := &record{on: func(error) {
				if !flipped.Swap(true) {
					setReadOnly(t, p, false)
				}
			}}
			err := m.run(context.Background(), pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec))), func(ctx context.Context, q querier) error {
				return q.exec(ctx, "INSERT INTO ro VALUES (1)")
			})
			if err != nil {
				t.Fatal(err)
			}
			got := rec.retried()
			if !hasState(got, "25006") || pgretry.Classify(got[0]) != sqlretry.ReadOnly {
				t.Fatalf("retried %v, want read_only_sql_transaction", got)
			}

			rec = &record{}
			r := pgretry.NewRunner(sqlretry.WithReadOnly(), sqlretry.WithRetrier(retrier(rec)))
			err = m.run(context.Background(), r, func(ctx context.Context, q querier) error {
				return q.exec(ctx, "INSERT INTO ro VALUES (2)")
			})
			if !errors.Is(err, backoff.ErrPermanent) || attemptsOf(err) != 1 || !hasState([]error{err}, "25006") {
				t.Errorf("a write in the runner's read-only transaction: %v after %d attempts, want 25006 at once", err, attemptsOf(err))
			}
		})
	}
}

// setReadOnly makes new transactions of the server read-only by default,
// or not, and waits until a new connection sees it.
func setReadOnly(t testing.TB, p *pgxpool.Pool, on bool) {
	t.Helper()
	stmt := "ALTER SYSTEM RESET default_transaction_read_only"
	want := "off"
	if on {
		stmt, want = "ALTER SYSTEM SET default_transaction_read_only = on", "on"
	}
	c, err := pgxConnect(srv.connString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for _, s := range []string{"SET default_transaction_read_only = off", stmt, "SELECT pg_reload_conf()"} {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for range 200 {
		c, err := pgxConnect(srv.connString())
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = c.QueryRow(context.Background(), "SHOW default_transaction_read_only").Scan(&got)
		c.Close(context.Background())
		if err == nil && got == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("default_transaction_read_only never became %s", want)
}

// A server nobody listens for: the connection is refused, retried after
// waits of the BackOff (spread by its jitter) until the attempts run out.
func TestConnectionRefusedRetried(t *testing.T) {
	needPG(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	conn := "host=127.0.0.1 user=postgres sslmode=disable connect_timeout=2 port=" + itoa(port)
	for _, m := range []string{"pgx", "database/sql"} {
		t.Run(m, func(t *testing.T) {
			rec := &record{}
			r := pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec, backoff.WithMaxTries(5))))
			calls := 0
			err := runOn(t, m, conn, r, func(context.Context, querier) error { calls++; return nil })
			if !errors.Is(err, backoff.ErrExhausted) || calls != 0 {
				t.Fatalf("err = %v after %d calls, want exhausted before any call", err, calls)
			}
			got := rec.retried()
			if len(got) != 4 {
				t.Fatalf("retried %d times, want 4", len(got))
			}
			for _, e := range got {
				if c := pgretry.Classify(e); c != sqlretry.Connection {
					t.Errorf("Classify(%v) = %v, want connection", e, c)
				}
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			distinct := map[time.Duration]bool{}
			for _, w := range rec.waits {
				distinct[w] = true
			}
			if len(distinct) < 2 {
				t.Errorf("waits %v, want them drawn from the BackOff's jitter", rec.waits)
			}
		})
	}
}
