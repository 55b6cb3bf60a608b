package mysqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/mysqlretry"
	"github.com/herdsafe/backoff/sqlretry"
)

// Two transactions that lock two rows in opposite orders: InnoDB breaks
// the deadlock (1213) by rolling one back, which the runner runs again.
func TestDeadlockRetried(t *testing.T) {
	db := open(t, "app")
	mustExec(t, db, "DROP TABLE IF EXISTS dl", "CREATE TABLE dl (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO dl VALUES (1, 0), (2, 0)")
	rec := &record{}
	r := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
	b := newBarrier(2)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			first := true
			errs[i] = r.Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, "UPDATE dl SET v = v + 1 WHERE id = ?", 1+i); err != nil {
					return err
				}
				if first {
					first = false
					b.wait()
				}
				_, err := tx.ExecContext(ctx, "UPDATE dl SET v = v + 1 WHERE id = ?", 2-i)
				return err
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	if got := rec.retried(); !hasNumber(got, 1213) {
		t.Fatalf("retried %v, want a deadlock", got)
	}
	if n := count(t, db, "SELECT sum(v) FROM dl"); n != 4 {
		t.Errorf("sum %d, want 4: each transaction committed once", n)
	}
}

// A lock wait timeout (1205) on a row another transaction holds: InnoDB
// rolls back the statement only; the runner rolls back the rest and runs
// the whole function again once the holder lets go.
func TestLockWaitTimeoutRetried(t *testing.T) {
	db := open(t, "app")
	mustExec(t, db, "DROP TABLE IF EXISTS lk", "CREATE TABLE lk (id int PRIMARY KEY, v int) ENGINE=InnoDB",
		"INSERT INTO lk VALUES (1, 0), (2, 0)")
	holder, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec("SELECT * FROM lk WHERE id = 1 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	rec := &record{on: func(error) { once.Do(func() { _ = holder.Commit() }) }}
	r := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
	calls := 0
	err = r.Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		if _, err := tx.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE lk SET v = v + 1 WHERE id = 2"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE lk SET v = v + 1 WHERE id = 1")
		return err
	})
	once.Do(func() { _ = holder.Rollback() })
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.retried(); !hasNumber(got, 1205) || calls != 2 {
		t.Fatalf("retried %v in %d calls, want a lock wait timeout", got, calls)
	}
	if n := count(t, db, "SELECT sum(v) FROM lk"); n != 2 {
		t.Errorf("sum %d, want 2: the first attempt's update of row 2 rolled back", n)
	}
}

// A server at its max_connections: a new connection of a user without
// the privilege to exceed it is refused with 1040, retried until there is
// room.
func TestTooManyConnectionsRetried(t *testing.T) {
	admin := open(t, "admin")
	held := make([]*sql.Conn, 11) // more than max_connections, whose least is 10
	for i := range held {
		c, err := admin.Conn(background)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held[i] = c
	}
	if _, err := held[0].ExecContext(background, "SET GLOBAL max_connections = 10"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	restore := func() {
		once.Do(func() {
			if _, err := held[1].ExecContext(background, "SET GLOBAL max_connections = 100"); err != nil {
				t.Error(err)
			}
		})
	}
	defer restore()
	rec := &record{on: func(error) { restore() }}
	r := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec)))
	err := r.Run(background, open(t, "app"), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.retried(); !hasNumber(got, 1040) {
		t.Fatalf("retried %v (%v), want too many connections", got, numbers(got))
	}
}

// A duplicate key (1062) is never retried.
func TestDuplicateKeyNotRetried(t *testing.T) {
	db := open(t, "app")
	mustExec(t, db, "DROP TABLE IF EXISTS dup", "CREATE TABLE dup (id int PRIMARY KEY) ENGINE=InnoDB", "INSERT INTO dup VALUES (1)")
	rec := &record{}
	calls := 0
	err := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec))).Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		if _, err := tx.ExecContext(ctx, "INSERT INTO dup VALUES (2)"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO dup VALUES (1)")
		return err
	})
	if !errors.Is(err, backoff.ErrPermanent) || calls != 1 || !hasNumber([]error{err}, 1062) {
		t.Fatalf("err = %v after %d calls, want 1062 at once", err, calls)
	}
	if c := mysqlretry.Classify(err); c != sqlretry.Permanent {
		t.Errorf("Classify = %v, want permanent", c)
	}
	if n := count(t, db, "SELECT count(*) FROM dup"); n != 1 {
		t.Errorf("%d rows, want the attempt rolled back", n)
	}
}
