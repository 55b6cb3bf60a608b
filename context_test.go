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
	if err := WithContext(context.Background(), nil).(validator).Validate(); !errors.Is(err, ErrInvalidConfiguration) {
		t.Errorf("WithContext(ctx, nil).Validate() = %v, want ErrInvalidConfiguration", err)
	}
}
