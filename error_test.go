package backoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

func TestErrorPrintsTheLastErrorUndecorated(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{LastErr: io.ErrUnexpectedEOF, Cause: ErrExhausted}, io.ErrUnexpectedEOF.Error()},
		{&Error{LastErr: io.EOF, Cause: context.Canceled}, "EOF"},
		{&Error{Cause: context.DeadlineExceeded}, context.DeadlineExceeded.Error()},
		{&Error{}, "backoff: retrying failed"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v.Error() = %q, want %q", c.err, got, c.want)
		}
		if got := fmt.Sprintf("%v|%s", c.err, c.err); got != c.want+"|"+c.want {
			t.Errorf("%%v|%%s = %q, want %q twice", got, c.want)
		}
	}
}

func TestErrorMatchesBothCauseAndLastErr(t *testing.T) {
	var err error = &Error{LastErr: fmt.Errorf("dial: %w", io.ErrClosedPipe), Cause: ErrMaxElapsedTime}
	if !errors.Is(err, ErrMaxElapsedTime) || !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("errors.Is does not see both the cause and the last error of %v", err)
	}
	if errors.Is(err, ErrExhausted) {
		t.Fatal("matches a cause it does not carry")
	}
	if errors.Unwrap(err) != nil {
		t.Fatal("errors.Unwrap of a multi-error should be nil")
	}
	var re *Error
	if !errors.As(fmt.Errorf("outer: %w", err), &re) || re.Cause != ErrMaxElapsedTime {
		t.Fatal("errors.As does not reach the *Error")
	}
	if got := (&Error{}).Unwrap(); len(got) != 0 {
		t.Fatalf("Unwrap of an empty Error = %v, want nothing", got)
	}
}

func TestErrorVerboseFormat(t *testing.T) {
	err := &Error{LastErr: errors.New("connection refused"), Cause: ErrExhausted, Attempts: 4, Elapsed: 7300 * time.Millisecond}
	want := "gave up after 4 attempts in 7.3s (backoff: retries exhausted): connection refused"
	if got := fmt.Sprintf("%+v", err); got != want {
		t.Fatalf("%%+v = %q, want %q", got, want)
	}
	if got := fmt.Sprintf("%q", err); got != `"connection refused"` {
		t.Fatalf("%%q = %s", got)
	}
	// One attempt is one attempt, and none is none.
	for attempts, want := range map[int]string{
		1: "gave up after 1 attempt in 0s (backoff: permanent error): bad request",
		0: "gave up after 0 attempts in 0s (backoff: permanent error): bad request",
	} {
		e := &Error{LastErr: errors.New("bad request"), Cause: ErrPermanent, Attempts: attempts}
		if got := fmt.Sprintf("%+v", e); got != want {
			t.Errorf("%%+v = %q, want %q", got, want)
		}
	}
	_, err2 := Retry(func() (int, error) { return 0, Permanent(errors.New("bad request")) })
	if got := fmt.Sprintf("%+v", err2); got != "gave up after 1 attempt in 0s (backoff: permanent error): bad request" {
		t.Errorf("Retry's %%+v = %q", got)
	}
}

// "Error() prints the last operation error undecorated (the cause only when
// there is no operation error)."
func TestDriverErrorMessageIsUndecorated(t *testing.T) {
	err := RetryError(func() error { return errors.New("connection refused") }, WithMaxTries(1))
	if got := err.Error(); got != "connection refused" {
		t.Errorf("Error() = %q, want %q", got, "connection refused")
	}
	if got := fmt.Sprint(err); got != "connection refused" {
		t.Errorf("fmt.Sprint = %q, want %q", got, "connection refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = DoErr(ctx, func(context.Context) error { return errors.New("never") })
	if got, want := err.Error(), context.Canceled.Error(); got != want {
		t.Errorf("with no operation error, Error() = %q, want the cause %q", got, want)
	}
}
