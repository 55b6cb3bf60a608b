package pgretry_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"

	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
)

// Two SERIALIZABLE transactions that each read what the other writes: the
// server aborts one with serialization_failure (40001), and the runner runs
// it again, whole, so that both commit.
func TestSerializationFailureRetried(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP TABLE IF EXISTS ser", "CREATE TABLE ser (cls int, v int)")
			rec := &record{}
			r := pgretry.NewRunner(sqlretry.WithIsolation(sql.LevelSerializable), sqlretry.WithRetrier(retrier(rec)))
			b := newBarrier(2)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			calls := make([]int, 2)
			for i := range 2 {
				wg.Go(func() {
					errs[i] = m.run(context.Background(), r, func(ctx context.Context, q querier) error {
						calls[i]++
						sum, err := q.int(ctx, "SELECT coalesce(sum(v), 0) FROM ser WHERE cls = $1", i)
						if err != nil {
							return err
						}
						if calls[i] == 1 {
							b.wait()
						}
						return q.exec(ctx, "INSERT INTO ser VALUES ($1, $2)", 1-i, sum+1)
					})
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("transaction %d: %v", i, err)
				}
			}
			got := rec.retried()
			if !hasState(got, "40001") {
				t.Fatalf("retried %v (SQLSTATEs %q), want a serialization failure", got, sqlstates(got))
			}
			for _, err := range got {
				if c := pgretry.Classify(err); c != sqlretry.Retry {
					t.Errorf("Classify(%v) = %v, want retry", err, c)
				}
			}
			if calls[0]+calls[1] < 3 {
				t.Errorf("the functions ran %d times, want the aborted one run again", calls[0]+calls[1])
			}
			if n := count(t, p, "SELECT count(*) FROM ser"); n != 2 {
				t.Errorf("%d rows, want 2", n)
			}
		})
	}
}

// Two transactions that lock two rows in opposite orders: the server
// breaks the deadlock (40P01) by aborting one, which the runner runs again.
func TestDeadlockRetried(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP TABLE IF EXISTS dl", "CREATE TABLE dl (id int PRIMARY KEY, v int)", "INSERT INTO dl VALUES (1, 0), (2, 0)")
			rec := &record{}
			r := pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
			b := newBarrier(2)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					first := true
					errs[i] = m.run(context.Background(), r, func(ctx context.Context, q querier) error {
						if err := q.exec(ctx, "UPDATE dl SET v = v + 1 WHERE id = $1", 1+i); err != nil {
							return err
						}
						if first {
							first = false
							b.wait()
						}
						return q.exec(ctx, "UPDATE dl SET v = v + 1 WHERE id = $1", 2-i)
					})
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("transaction %d: %v", i, err)
				}
			}
			if got := rec.retried(); !hasState(got, "40P01") {
				t.Fatalf("retried %v, want a deadlock", got)
			}
			if n := count(t, p, "SELECT sum(v) FROM dl"); n != 4 {
				t.Errorf("sum %d, want 4: each transaction committed once", n)
			}
		})
	}
}

// A lock_timeout on a row another transaction holds: lock_not_available
// (55P03), retried until the holder lets go.
func TestLockNotAvailableRetried(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP TABLE IF EXISTS lk", "CREATE TABLE lk (id int PRIMARY KEY, v int)", "INSERT INTO lk VALUES (1, 0)")
			holder, err := p.Begin(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := holder.Exec(context.Background(), "SELECT * FROM lk WHERE id = 1 FOR UPDATE"); err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			rec := &record{on: func(error) { once.Do(func() { _ = holder.Commit(context.Background()) }) }}
			r := pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
			err = m.run(context.Background(), r, func(ctx context.Context, q querier) error {
				if err := q.exec(ctx, "SET LOCAL lock_timeout = '20ms'"); err != nil {
					return err
				}
				return q.exec(ctx, "UPDATE lk SET v = v + 1 WHERE id = 1")
			})
			once.Do(func() { _ = holder.Rollback(context.Background()) })
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.retried(); !hasState(got, "55P03") {
				t.Fatalf("retried %v, want lock_not_available", got)
			}
			if n := count(t, p, "SELECT v FROM lk"); n != 1 {
				t.Errorf("v = %d, want 1", n)
			}
		})
	}
}

// A role allowed one connection, which another holds: the server refuses
// the next with too_many_connections (53300), retried until the other
// connection closes.
func TestTooManyConnectionsRetried(t *testing.T) {
	for _, m := range []string{"pgx", "database/sql"} {
		t.Run(m, func(t *testing.T) {
			p := newPool(t)
			mustExec(t, p, "DROP ROLE IF EXISTS lone", "CREATE ROLE lone LOGIN CONNECTION LIMIT 1")
			conn := srv.connString() + " user=lone"
			first, err := pgxConnect(conn)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			closeFirst := func() { once.Do(func() { _ = first.Close(context.Background()) }) }
			defer closeFirst()
			rec := &record{on: func(error) { closeFirst() }}
			r := pgretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
			err = runOn(t, m, conn, r, func(ctx context.Context, q querier) error {
				_, err := q.int(ctx, "SELECT 1")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.retried(); !hasState(got, "53300") {
				t.Fatalf("retried %v (%q), want too_many_connections", got, sqlstates(got))
			}
		})
	}
}

// runOn runs fn through r on a new pool or database/sql handle of connString.
func runOn(t *testing.T, m, connString string, r *sqlretry.Runner, fn func(context.Context, querier) error) error {
	t.Helper()
	switch m {
	case "pgx":
		pool := poolOf(t, connString)
		return pgretry.Run(context.Background(), r, pool, func(ctx context.Context, tx pgx.Tx) error { return fn(ctx, pgxQ{tx}) })
	case "database/sql":
		db := dbOf(t, connString)
		return r.Run(context.Background(), db, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, sqlQ{tx}) })
	}
	panic(fmt.Sprint("no mode ", m))
}
