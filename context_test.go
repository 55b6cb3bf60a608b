package backoff

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

func TestWithContextStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	b := WithContext(ctx, NewConstantBackOff(time.Second))
	if got := b.NextBackOff(); got != time.Second {
		t.Fatalf("before cancel: %v, want 1s", got)
	}
	shutdown := errors.New("shutdown")
	cancel(shutdown)
	if got := b.NextBackOff(); got != Stop {
		t.Fatalf("after cancel: %v, want Stop", got)
	}
	// The driver reports the BackOff's context's cause, not ErrExhausted.
	_, err := Retry(func() (int, error) { return 0, io.EOF }, WithBackOff(b))
	var re *Error
	if !errors.As(err, &re) || re.Cause != shutdown || re.LastErr != io.EOF {
		t.Fatalf("got %#v, want Cause shutdown and LastErr EOF", re)
	}
	calls := 0
	_, err = Retry(func() (int, error) { calls++; return 0, io.EOF }, WithBackOff(WithContext(context.Background(), nil)))
	if !errors.As(err, &re) || !errors.Is(re.Cause, ErrInvalidConfiguration) || calls != 0 {
		t.Errorf("WithContext(ctx, nil): %v after %d calls, want ErrInvalidConfiguration before any", err, calls)
	}
}
