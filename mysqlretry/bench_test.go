package mysqlretry_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/herdsafe/backoff/mysqlretry"
)

// The runner's own cost on a transaction that succeeds, against the same
// transaction written by hand, on the tests' server over loopback. Compare
// the runner's ns/op with its hand-written peer's of the same run.
func BenchmarkTransaction(b *testing.B) {
	db := open(b, "app")
	mustExec(b, db, "DROP TABLE IF EXISTS bench", "CREATE TABLE bench (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO bench VALUES (1, 0)")
	ctx := context.Background()
	r := mysqlretry.NewRunner()
	const stmt = "UPDATE bench SET v = v + 1 WHERE id = 1"

	b.Run("hand-written", func(b *testing.B) {
		for b.Loop() {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				_ = tx.Rollback()
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("runner", func(b *testing.B) {
		fn := func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, stmt)
			return err
		}
		for b.Loop() {
			if err := r.Run(ctx, db, fn); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The runner against the hand-written transaction in turns: the ratio is
// the runner's cost.
func BenchmarkRunnerOverhead(b *testing.B) {
	db := open(b, "app")
	mustExec(b, db, "DROP TABLE IF EXISTS bench", "CREATE TABLE bench (id int PRIMARY KEY, v int) ENGINE=InnoDB", "INSERT INTO bench VALUES (1, 0)")
	ctx := context.Background()
	r := mysqlretry.NewRunner()
	const stmt = "UPDATE bench SET v = v + 1 WHERE id = 1"
	fn := func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, stmt)
		return err
	}
	alternate(b, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}, func() error { return r.Run(ctx, db, fn) })
}

// alternate runs hand and runner in turns, b.N times each, the first of
// the pair swapped at each turn so that neither is favoured by what the
// machine does meanwhile, and reports the mean time of each and their
// ratio: on a shared machine, a ratio of runs side by side is steadier
// than one of runs one after the other.
func alternate(b *testing.B, hand, runner func() error) {
	var tHand, tRunner time.Duration
	timed := func(fn func() error, total *time.Duration) {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		*total += time.Since(start)
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			timed(hand, &tHand)
			timed(runner, &tRunner)
		} else {
			timed(runner, &tRunner)
			timed(hand, &tHand)
		}
	}
	b.ReportMetric(float64(tHand.Nanoseconds())/float64(b.N), "hand-ns/tx")
	b.ReportMetric(float64(tRunner.Nanoseconds())/float64(b.N), "runner-ns/tx")
	b.ReportMetric(float64(tRunner)/float64(tHand), "runner/hand")
}
