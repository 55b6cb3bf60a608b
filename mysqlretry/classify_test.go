package mysqlretry_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/herdsafe/backoff/mysqlretry"
	"github.com/herdsafe/backoff/sqlretry"
)

// The table of error numbers, including those a MariaDB server cannot be
// made to give here (1836 is MySQL's super_read_only; 2006 and 2013 are
// client codes); the tests beside it provoke the others for real.
func TestClassify(t *testing.T) {
	my := func(n uint16, msg string) error {
		return fmt.Errorf("wrapped: %w", &mysql.MySQLError{Number: n, Message: msg})
	}
	cases := []struct {
		err  error
		want sqlretry.Class
	}{
		{nil, sqlretry.Unknown},
		{errors.New("mine"), sqlretry.Unknown},
		{context.Canceled, sqlretry.Unknown},
		{my(1213, "Deadlock found"), sqlretry.Retry},
		{my(1205, "Lock wait timeout exceeded"), sqlretry.Retry},
		{my(1040, "Too many connections"), sqlretry.Retry},
		{my(1203, "User already has more than 'max_user_connections'"), sqlretry.Retry},
		{my(1927, "Connection was killed"), sqlretry.Connection},
		{my(1053, "Server shutdown in progress"), sqlretry.Connection},
		{my(2006, "MySQL server has gone away"), sqlretry.Connection},
		{my(2013, "Lost connection to MySQL server during query"), sqlretry.Connection},
		{my(1290, "The MariaDB server is running with the --read-only option so it cannot execute this statement"), sqlretry.ReadOnly},
		{my(1290, "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement"), sqlretry.Permanent},
		{my(1836, "Running in read-only mode"), sqlretry.ReadOnly},
		{my(1792, "Cannot execute statement in a READ ONLY transaction"), sqlretry.Permanent},
		{my(1062, "Duplicate entry"), sqlretry.Permanent},
		{my(1064, "You have an error in your SQL syntax"), sqlretry.Permanent},
		{mysql.ErrInvalidConn, sqlretry.Connection},
		{driver.ErrBadConn, sqlretry.Unsent},
		{io.EOF, sqlretry.Connection},
		{syscall.ECONNREFUSED, sqlretry.Connection},
	}
	for _, c := range cases {
		if got := mysqlretry.Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
		wantRetry := c.want == sqlretry.Retry || c.want == sqlretry.Connection || c.want == sqlretry.ReadOnly || c.want == sqlretry.Unsent
		if got := mysqlretry.Retryable(c.err); got != wantRetry {
			t.Errorf("Retryable(%v) = %v, want %v", c.err, got, wantRetry)
		}
	}
}
