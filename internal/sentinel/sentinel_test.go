package sentinel

import (
	"errors"
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	var err error = New("quota: spent", "quota.ErrSpent", "spent")
	if got := fmt.Sprint(err); got != "quota: spent" {
		t.Errorf("%%v = %q, want the message", got)
	}
	if got := fmt.Sprintf("%v", fmt.Errorf("call: %w", err)); got != "call: quota: spent" {
		t.Errorf("wrapped: %q", got)
	}
	var named interface {
		ErrorType() string
		RetryCause() string
	}
	if !errors.As(fmt.Errorf("call: %w", err), &named) || named.ErrorType() != "quota.ErrSpent" || named.RetryCause() != "spent" {
		t.Errorf("the names are not found through a wrapper")
	}
	if other := New("quota: spent", "quota.ErrSpent", "spent"); errors.Is(other, err) || other == err {
		t.Error("two sentinels made alike match each other; each must be its own")
	}
	if errors.Unwrap(err) != nil {
		t.Error("a sentinel wraps nothing")
	}
}
