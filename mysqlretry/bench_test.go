package mysqlretry_test

import (
	"context"
	"database/sql"
	"testing"

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
