package mysqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/mysqlretry"
	"github.com/herdsafe/backoff/sqlretry"
)

// ExampleDSN is the server the examples use: the tests' own when they
// have one (the examples skip when there is none).
var ExampleDSN = "app@tcp(127.0.0.1:3306)/test?timeout=5s&readTimeout=30s&writeTimeout=30s"

// An order and its stock, in one transaction: a deadlock, a lock wait
// timeout or a lost connection runs the whole function again; a
// duplicate key does not.
func ExampleNewRunner() {
	ctx := context.Background()
	db, err := sql.Open("mysql", ExampleDSN)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"DROP TABLE IF EXISTS example_stock, example_order",
		"CREATE TABLE example_stock (item int PRIMARY KEY, n int) ENGINE=InnoDB",
		"CREATE TABLE example_order (id int PRIMARY KEY, item int) ENGINE=InnoDB",
		"INSERT INTO example_stock VALUES (7, 3)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			log.Fatal(err)
		}
	}

	r := mysqlretry.NewRunner(
		sqlretry.WithIsolation(sql.LevelRepeatableRead),
		sqlretry.WithRetrier(backoff.NewRetrier(backoff.WithMaxTries(5))),
	)
	order := func(id int) error {
		return r.Run(ctx, db, func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, "UPDATE example_stock SET n = n - 1 WHERE item = 7"); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO example_order VALUES (?, 7)", id)
			return err
		})
	}
	fmt.Println(order(1))
	err = order(1) // the same order again: a duplicate key, not retried
	var be *backoff.Error
	if errors.As(err, &be) {
		fmt.Println(be.Attempts, errors.Is(err, backoff.ErrPermanent), mysqlretry.Classify(err))
	}
	var n int
	_ = db.QueryRowContext(ctx, "SELECT n FROM example_stock").Scan(&n)
	fmt.Println("in stock:", n)
	// Output:
	// <nil>
	// 1 true permanent
	// in stock: 2
}
