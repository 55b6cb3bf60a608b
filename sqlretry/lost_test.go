package sqlretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// ConnectionLost knows the failures of a connection every driver shares,
// through wrapping, and nothing else.
func TestConnectionLost(t *testing.T) {
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE, net.ErrClosed,
		&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, fmt.Errorf("query: %w", io.EOF)} {
		if !ConnectionLost(err) {
			t.Errorf("ConnectionLost(%v) = false, want true", err)
		}
	}
	for _, err := range []error{nil, errors.New("duplicate key"), context.Canceled} {
		if ConnectionLost(err) {
			t.Errorf("ConnectionLost(%v) = true, want false", err)
		}
	}
}

// A statement may be run again after Retry, Connection, ReadOnly and
// Unsent only.
func TestClassRetryable(t *testing.T) {
	want := map[Class]bool{Unknown: false, Permanent: false, Retry: true, ReadOnly: true, Aborted: false, Connection: true, Unsent: true}
	for c, w := range want {
		if c.Retryable() != w {
			t.Errorf("%v.Retryable() = %v, want %v", c, c.Retryable(), w)
		}
	}
}
