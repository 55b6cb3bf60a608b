package sqlretry_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/sqlretry"
)

// memTx is a transaction of a toy driver that keeps its books in memory.
type memTx struct{ pending int }

// memDriver is a TxDriver whose first COMMIT the server refuses with a
// serialization failure.
type memDriver struct {
	balance int
	refuse  bool
}

var errSerialization = errors.New("could not serialize access")

func (d *memDriver) Begin(context.Context) (*memTx, error) { return &memTx{}, nil }

func (d *memDriver) Commit(_ context.Context, tx *memTx) error {
	if d.refuse {
		d.refuse = false
		return errSerialization
	}
	d.balance += tx.pending
	return nil
}

func (d *memDriver) Rollback(context.Context, *memTx) error { return nil }

// RunTx reaches a driver of one's own through a TxDriver; a Classifier
// says which of its errors are worth running the transaction again.
func ExampleRunTx() {
	classify := sqlretry.ClassifierFunc(func(err error) sqlretry.Class {
		if errors.Is(err, errSerialization) {
			return sqlretry.Retry
		}
		return sqlretry.Unknown
	})
	r := sqlretry.New(classify, sqlretry.WithRetrier(backoff.NewRetrier(backoff.WithBackOff(&backoff.ZeroBackOff{}))))
	d := &memDriver{refuse: true}
	calls := 0
	err := sqlretry.RunTx(context.Background(), r, d, func(_ context.Context, tx *memTx) error {
		calls++
		tx.pending += 10
		return nil
	})
	fmt.Println(err, calls, d.balance)
	// Output:
	// <nil> 2 10
}

// A COMMIT whose outcome is unknown is reported, not retried: the caller
// finds out whether it took effect before doing it again.
func ExampleErrCommitOutcomeUnknown() {
	lost := errors.New("connection reset by peer")
	classify := sqlretry.ClassifierFunc(func(err error) sqlretry.Class {
		if errors.Is(err, lost) {
			return sqlretry.Connection
		}
		return sqlretry.Unknown
	})
	r := sqlretry.New(classify)
	err := sqlretry.RunTx(context.Background(), r, lostCommit{lost}, func(context.Context, *memTx) error { return nil })
	fmt.Println(errors.Is(err, sqlretry.ErrCommitOutcomeUnknown), errors.Is(err, lost))
	// Output:
	// true true
}

// lostCommit is a TxDriver whose COMMIT loses its connection.
type lostCommit struct{ err error }

func (lostCommit) Begin(context.Context) (*memTx, error)  { return &memTx{}, nil }
func (l lostCommit) Commit(context.Context, *memTx) error { return l.err }
func (lostCommit) Rollback(context.Context, *memTx) error { return nil }
