package budget_test

import (
	"errors"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
)

// NewTokenBucketFallback reads the options as NewTokenBucket does, in
// thousandths of a token, and moves the classifier to the settings: the
// fallback then counts an error the classifier would not have as a
// failure.
func TestNewTokenBucketFallback(t *testing.T) {
	b, s := budget.NewTokenBucketFallback()
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.MaxTokens != budget.DefaultMaxTokens*1000 || s.TokenRatio != budget.DefaultTokenRatio*1000 || s.Clock == nil || s.IsFailure != nil {
		t.Errorf("default settings %+v", s)
	}

	benign := errors.New("benign")
	clk := clock.NewMock()
	b, s = budget.NewTokenBucketFallback(budget.WithMaxTokens(4), budget.WithTokenRatio(0.5), budget.WithClock(clk),
		budget.WithIsFailure(func(err error) bool { return !errors.Is(err, benign) }))
	if s.MaxTokens != 4000 || s.TokenRatio != 500 || s.Clock != clk {
		t.Errorf("settings %+v", s)
	}
	if s.IsFailure == nil || s.IsFailure(benign) || !s.IsFailure(errDown) {
		t.Error("the settings do not carry the classifier given")
	}
	for range 2 {
		b.Record(guard.Permit{}, guard.Outcome{Err: benign})
	}
	if got := b.Stats().Tokens; got != 2 {
		t.Errorf("the fallback has %v tokens after two errors its classifier was taken from; want 2", got)
	}
	n := budget.NewTokenBucket(budget.WithMaxTokens(4), budget.WithIsFailure(func(err error) bool { return !errors.Is(err, benign) }))
	n.Record(guard.Permit{}, guard.Outcome{Err: benign})
	if got := n.Stats().Tokens; got != 4 {
		t.Errorf("NewTokenBucket's budget has %v tokens after a benign error; want 4", got)
	}
}

// NewRatioFallback reads the options as NewRatio does, the reserve and the
// ratio in their units and WithWindowOffset's offset, which a shared
// budget refuses.
func TestNewRatioFallback(t *testing.T) {
	b, s := budget.NewRatioFallback()
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	want := fleet.Ratio{Window: budget.DefaultWindow, Reserve: budget.DefaultMinRetriesPerSecond * 10, Ratio: budget.DefaultRetryRatio * 1e6, Clock: s.Clock}
	if s != want || s.Clock == nil {
		t.Errorf("default settings %+v, want %+v", s, want)
	}
	clk := clock.NewMock()
	b, s = budget.NewRatioFallback(budget.WithWindow(20*time.Second), budget.WithMinRetriesPerSecond(2), budget.WithRetryRatio(0.5),
		budget.WithWindowOffset(3*time.Second), budget.WithClock(clk))
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	want = fleet.Ratio{Window: 20 * time.Second, Reserve: 40, Ratio: 500000, Clock: clk, Offset: 3 * time.Second}
	if s != want {
		t.Errorf("settings %+v, want %+v", s, want)
	}
}

// A bad option is the fallback's Validate error, the constructor's own,
// and the settings are the zero value.
func TestFleetFallbackBadOption(t *testing.T) {
	opts := []budget.Option{budget.WithMaxTokens(-1)}
	b, s := budget.NewTokenBucketFallback(opts...)
	if err := b.Validate(); !errors.Is(err, backoff.ErrInvalidConfiguration) || err.Error() != budget.NewTokenBucket(opts...).Validate().Error() {
		t.Errorf("Validate = %v, want NewTokenBucket's invalid configuration", err)
	}
	if s.MaxTokens != 0 || s.TokenRatio != 0 || s.IsFailure != nil || s.Clock != nil {
		t.Errorf("settings of a bad bucket %+v", s)
	}
	opts = []budget.Option{budget.WithWindow(-time.Second)}
	r, rs := budget.NewRatioFallback(opts...)
	if err := r.Validate(); !errors.Is(err, backoff.ErrInvalidConfiguration) || err.Error() != budget.NewRatio(opts...).Validate().Error() {
		t.Errorf("Validate = %v, want NewRatio's invalid configuration", err)
	}
	if rs != (fleet.Ratio{}) {
		t.Errorf("settings of a bad ratio budget %+v", rs)
	}
}
