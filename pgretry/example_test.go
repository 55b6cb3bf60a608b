package pgretry_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/pgretry"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ExampleConnString is the server the examples use: the tests' own when
// they have one (the examples skip when there is none).
var ExampleConnString = "host=127.0.0.1 port=5432 user=postgres dbname=postgres sslmode=disable"

// A transfer between two accounts under SERIALIZABLE, with pgxpool: a
// serialization failure, a deadlock or a lost connection runs the whole
// function again in a new transaction.
func ExampleRun() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, ExampleConnString)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS example_account;
		CREATE TABLE example_account (id int PRIMARY KEY, balance int);
		INSERT INTO example_account VALUES (1, 100), (2, 0)`); err != nil {
		log.Fatal(err)
	}

	r := pgretry.NewRunner(
		sqlretry.WithIsolation(sql.LevelSerializable),
		sqlretry.WithRetrier(backoff.NewRetrier(backoff.WithMaxTries(5))),
	)
	err = pgretry.Run(ctx, r, pool, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE example_account SET balance = balance - 30 WHERE id = 1"); err != nil {
			return err // the first error, as it is: the runner decides
		}
		_, err := tx.Exec(ctx, "UPDATE example_account SET balance = balance + 30 WHERE id = 2")
		return err
	})
	switch {
	case errors.Is(err, sqlretry.ErrCommitOutcomeUnknown):
		fmt.Println("the transfer may have been made: look before doing it again")
	case err != nil:
		fmt.Println("no transfer:", err)
	default:
		var a, b int
		_ = pool.QueryRow(ctx, "SELECT (SELECT balance FROM example_account WHERE id = 1), (SELECT balance FROM example_account WHERE id = 2)").Scan(&a, &b)
		fmt.Println("transferred:", a, b)
	}
	// Output:
	// transferred: 70 30
}

// The same runner with database/sql, through pgx's stdlib driver
// (imported as _ "github.com/jackc/pgx/v5/stdlib").
func ExampleNewRunner() {
	ctx := context.Background()
	db, err := sql.Open("pgx", ExampleConnString)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	r := pgretry.NewRunner(sqlretry.WithReadOnly())
	var n int
	err = r.Run(ctx, db, func(ctx context.Context, tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT 40 + 2").Scan(&n)
	})
	fmt.Println(n, err)
	// Output:
	// 42 <nil>
}

// Classify tells what a server's error means; Retryable is for a single
// statement that does no harm twice, given to backoff.WithRetryable.
func ExampleClassify() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, ExampleConnString)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "SELECT 1/0")
	fmt.Println(pgretry.Classify(err), pgretry.Retryable(err))

	n, err := backoff.Do(ctx, func(ctx context.Context) (int, error) {
		var n int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity").Scan(&n)
		return n, err
	}, backoff.WithRetryable(pgretry.Retryable), backoff.WithMaxTries(3))
	fmt.Println(n > 0, err)
	// Output:
	// permanent false
	// true <nil>
}
