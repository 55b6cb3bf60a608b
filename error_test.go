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
}

func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Fatal("Permanent(nil) != nil")
	}
	inner := errors.New("bad request")
	p := Permanent(inner)
	if p.Error() != "bad request" || !errors.Is(p, inner) {
		t.Fatalf("Permanent(%v) = %v; it must print and match the error it wraps", inner, p)
	}
	for _, c := range []struct {
		err      error
		wantLast error
	}{
		{p, inner},
		{fmt.Errorf("building the request: %w", p), nil}, // the whole chain
		{errors.Join(io.EOF, p), nil},
	} {
		last, ok := permanentCause(c.err)
		if !ok {
			t.Fatalf("%v: Permanent mark not found", c.err)
		}
		want := c.wantLast
		if want == nil {
			want = c.err
		}
		if last != want {
			t.Errorf("%v: LastErr %v, want %v", c.err, last, want)
		}
	}
	if _, ok := permanentCause(io.EOF); ok {
		t.Fatal("a plain error taken for a Permanent one")
	}
}

func TestRetryAfterError(t *testing.T) {
	cause := errors.New("rate limited")
	err := RetryAfter(3*time.Second, cause)
	if got := err.Error(); got != "retry after 3s: rate limited" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(err, cause) {
		t.Error("RetryAfterError does not unwrap to its cause")
	}
	if got := RetryAfter(time.Second, nil).Error(); got != "retry after 1s" {
		t.Errorf("without a cause, Error() = %q", got)
	}
	d, last, ok := retryAfter(fmt.Errorf("call: %w", err))
	if !ok || d != 3*time.Second || last != cause {
		t.Errorf("wrapped: %v %v %v, want 3s, the cause, true", d, last, ok)
	}
	bare := RetryAfter(-time.Second, nil)
	if d, last, _ := retryAfter(bare); d != 0 || last != bare {
		t.Errorf("negative, causeless: %v %v, want 0 and the RetryAfterError itself", d, last)
	}
}
