package mysqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/mysqlretry"
	"github.com/herdsafe/backoff/sqlretry"
)

// kill ends the connection id from another, as an administrator's KILL
// does.
func kill(t testing.TB, admin *sql.DB, id int64) {
	t.Helper()
	if _, err := admin.Exec("KILL ?", id); err != nil {
		t.Errorf("KILL %d: %v", id, err)
	}
}

// A connection killed in the middle of a transaction: the statement after
// fails (the connection gone), the transaction did not commit, and the
// runner runs it again on a new connection.
func TestKilledConnectionRetried(t *testing.T) {
	db, admin := open(t, "app"), open(t, "admin")
	mustExec(t, db, "DROP TABLE IF EXISTS kc", "CREATE TABLE kc (id int) ENGINE=InnoDB")
	rec := &record{}
	calls := 0
	err := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec))).Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		if _, err := tx.ExecContext(ctx, "INSERT INTO kc VALUES (1)"); err != nil {
			return err
		}
		if calls == 1 {
			var id int64
			if err := tx.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
				return err
			}
			kill(t, admin, id)
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO kc VALUES (2)")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.retried()
	if len(got) != 1 || calls != 2 {
		t.Fatalf("retried %v in %d calls, want one retry", got, calls)
	}
	if c := mysqlretry.Classify(got[0]); c != sqlretry.Connection {
		t.Errorf("Classify(%v) = %v, want connection", got[0], c)
	}
	t.Logf("the killed connection's error: %v (%v)", got[0], numbers(got))
	if n := count(t, db, "SELECT count(*) FROM kc"); n != 2 {
		t.Errorf("%d rows, want the 2 of the second attempt only", n)
	}
}

// semiSync makes COMMIT wait for a semi-synchronous replica that never
// comes, or not.
func semiSync(t testing.TB, admin *sql.DB, on bool) {
	t.Helper()
	if on {
		mustExec(t, admin, "SET GLOBAL rpl_semi_sync_master_timeout = 60000", "SET GLOBAL rpl_semi_sync_master_wait_no_slave = ON",
			"SET GLOBAL rpl_semi_sync_master_enabled = ON")
		return
	}
	mustExec(t, admin, "SET GLOBAL rpl_semi_sync_master_enabled = OFF")
}

// killWaitingCommit kills the connection id once its COMMIT waits for the
// replica's acknowledgement, after the transaction committed, and lets
// COMMITs be again.
func killWaitingCommit(t testing.TB, admin *sql.DB, id int64) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var state sql.NullString
		if err := admin.QueryRow("SELECT state FROM information_schema.processlist WHERE id = ?", id).Scan(&state); err != nil {
			t.Error(err)
			return
		}
		if strings.Contains(strings.ToLower(state.String), "semi-sync") {
			kill(t, admin, id)
			semiSync(t, admin, false)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Error("the COMMIT never waited for the replica")
}

// A COMMIT cut off by killing its connection while it waits: the
// transaction committed, but the client cannot know. The runner does not
// run it again and says the outcome is unknown; declared idempotent, it
// runs it again.
func TestCommitCutOff(t *testing.T) {
	db, admin := open(t, "app"), open(t, "admin")
	mustExec(t, db, "DROP TABLE IF EXISTS pay", "CREATE TABLE pay (id int PRIMARY KEY) ENGINE=InnoDB")
	var killer sync.WaitGroup // the killer of a COMMIT, awaited before the next statement
	cutOff := func(ctx context.Context, tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			return err
		}
		semiSync(t, admin, true)
		killer.Go(func() { killWaitingCommit(t, admin, id) })
		_, err := tx.ExecContext(ctx, "INSERT IGNORE INTO pay VALUES (1)")
		return err
	}
	defer semiSync(t, admin, false)

	rec := &record{}
	calls := 0
	err := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec))).Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		return cutOff(ctx, tx)
	})
	killer.Wait()
	if !errors.Is(err, sqlretry.ErrCommitOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrCommitOutcomeUnknown", err)
	}
	if !errors.Is(err, backoff.ErrPermanent) || calls != 1 || len(rec.retried()) != 0 {
		t.Errorf("err = %v after %d calls (retried %v), want no retry", err, calls, rec.retried())
	}
	if n := count(t, admin, "SELECT count(*) FROM test.pay"); n != 1 {
		t.Errorf("%d payments, want the 1 that committed", n)
	}

	mustExec(t, db, "DELETE FROM pay")
	rec, calls = &record{}, 0
	r := mysqlretry.NewRunner(sqlretry.WithIdempotent(), sqlretry.WithRetrier(retrier(rec)))
	err = r.Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		if calls == 1 {
			return cutOff(ctx, tx)
		}
		killer.Wait()
		_, err := tx.ExecContext(ctx, "INSERT IGNORE INTO pay VALUES (1)")
		return err
	})
	if err != nil || calls != 2 {
		t.Fatalf("idempotent: err = %v after %d calls, want success at the second", err, calls)
	}
	if got := rec.retried(); len(got) != 1 || !errors.Is(got[0], sqlretry.ErrCommitOutcomeUnknown) {
		t.Errorf("idempotent: retried %v, want the unknown outcome", got)
	}
	if n := count(t, db, "SELECT count(*) FROM pay"); n != 1 {
		t.Errorf("idempotent: %d payments, want 1", n)
	}
}

// A server set read_only, as a demoted primary is: writes fail with 1290
// and are retried until it takes writes again. A runner that asked for
// read-only transactions itself does not retry a write (1792).
func TestReadOnlyServer(t *testing.T) {
	db, admin := open(t, "app"), open(t, "admin")
	mustExec(t, db, "DROP TABLE IF EXISTS ro", "CREATE TABLE ro (id int) ENGINE=InnoDB")
	mustExec(t, admin, "SET GLOBAL read_only = ON")
	defer mustExec(t, admin, "SET GLOBAL read_only = OFF")
	var flipped atomic.Bool
	rec := &record{on: func(error) {
		if !flipped.Swap(true) {
			mustExec(t, admin, "SET GLOBAL read_only = OFF")
		}
	}}
	err := mysqlretry.NewRunner(sqlretry.WithRetrier(retrier(rec))).Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO ro VALUES (1)")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.retried()
	if !hasNumber(got, 1290) || mysqlretry.Classify(got[0]) != sqlretry.ReadOnly {
		t.Fatalf("retried %v, want the read-only refusal", got)
	}

	rec = &record{}
	r := mysqlretry.NewRunner(sqlretry.WithReadOnly(), sqlretry.WithRetrier(retrier(rec)))
	calls := 0
	err = r.Run(background, db, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		_, err := tx.ExecContext(ctx, "INSERT INTO ro VALUES (2)")
		return err
	})
	if !errors.Is(err, backoff.ErrPermanent) || calls != 1 || !hasNumber([]error{err}, 1792) {
		t.Errorf("a write in the runner's read-only transaction: %v after %d calls, want 1792 at once", err, calls)
	}
}
