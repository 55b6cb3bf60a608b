package queue_test

import (
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/setting"
)

// A maximum wait without a queue is reported in the guard's words; with a
// queue, or without a maximum wait, nothing is; an earlier mistake is kept.
func TestSettingsCheck(t *testing.T) {
	const settings = setting.Package("guard")
	for _, c := range []struct {
		s    queue.Settings
		want string
	}{
		{queue.Settings{MaxWait: time.Second}, "backoff: invalid configuration: guard: WithMaxWait(1s) without WithQueue: no caller would wait"},
		{queue.Settings{Size: 1, MaxWait: time.Second}, ""},
		{queue.Settings{}, ""},
	} {
		var err error
		c.s.Check(settings, &err)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, setting.ErrInvalid)) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	first := settings.Invalid("WithQueue(-1) is outside [0, 1]")
	err := first
	queue.Settings{MaxWait: time.Second}.Check(settings, &err)
	if err != first {
		t.Errorf("Check replaced the first mistake with %v", err)
	}
}
