package pgretry_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/herdsafe/backoff/pgretry"
	"github.com/jackc/pgx/v5"
)

// The runner's own cost on a transaction that succeeds, against the same
// transaction written by hand, on the tests' server over loopback, with
// pgx natively and through database/sql. Compare each runner's ns/op with
// its hand-written peer's of the same run.
func BenchmarkTransaction(b *testing.B) {
	pool, db := newPool(b), newDB(b)
	mustExec(b, pool, "DROP TABLE IF EXISTS bench", "CREATE TABLE bench (id int PRIMARY KEY, v int)", "INSERT INTO bench VALUES (1, 0)")
	ctx := context.Background()
	r := pgretry.NewRunner()
	const stmt = "UPDATE bench SET v = v + 1 WHERE id = 1"

	b.Run("pgx/hand-written", func(b *testing.B) {
		for b.Loop() {
			tx, err := pool.Begin(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec(ctx, stmt); err != nil {
				_ = tx.Rollback(ctx)
				b.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pgx/runner", func(b *testing.B) {
		fn := func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, stmt)
			return err
		}
		for b.Loop() {
			if err := pgretry.Run(ctx, r, pool, fn); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("database-sql/hand-written", func(b *testing.B) {
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
	b.Run("database-sql/runner", func(b *testing.B) {
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
