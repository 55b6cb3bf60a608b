package backoff

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// negativeBackOff is a broken BackOff of the caller's own: its waits are
// negative but not Stop.
type negativeBackOff struct{}

func (negativeBackOff) NextBackOff() time.Duration { return -time.Second }
func (negativeBackOff) Reset()                     {}
func (b negativeBackOff) Clone() BackOff           { return b }

// A BackOff of the caller's own that returns a negative wait is reported
// by the driver and the Loop, and ends a Ticker, instead of being slept on.
func TestNegativeWaitFromACustomBackOff(t *testing.T) {
	calls := 0
	_, err := Retry(func() (int, error) { calls++; return 0, io.EOF }, WithBackOff(negativeBackOff{}))
	var re *Error
	if !errors.As(err, &re) || !errors.Is(re.Cause, ErrInvalidConfiguration) ||
		!strings.Contains(re.Cause.Error(), "negative") || re.LastErr != io.EOF || calls != 1 {
		t.Errorf("Retry: %+v after %d calls, want an ErrInvalidConfiguration about a negative wait, LastErr EOF, after 1", err, calls)
	}
	loop := newLoop(WithBackOff(negativeBackOff{}))
	ctx := context.Background()
	if !loop.Wait(ctx) || loop.Wait(ctx) {
		t.Fatal("the Loop should admit the first attempt and refuse the second")
	}
	if err := loop.Err(); !errors.Is(err, ErrInvalidConfiguration) {
		t.Errorf("Loop.Err() = %v, want ErrInvalidConfiguration", err)
	}
	defer goleak.VerifyNone(t)
	ticker := NewTicker(negativeBackOff{})
	<-ticker.C
	if _, ok := <-ticker.C; ok {
		t.Error("a tick after a negative wait")
	}
	ticker.Stop()
}
