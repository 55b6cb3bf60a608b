package backoff

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// "Misconfiguration is reported, not guessed": the driver returns at once,
// without calling the operation, an *Error whose Cause matches
// ErrInvalidConfiguration and whose message names the bad field.
func TestDriverRejectsMisconfiguration(t *testing.T) {
	exp := func(f func(*ExponentialBackOff)) RetryOption {
		b := NewExponentialBackOff()
		f(b)
		return WithBackOff(b)
	}
	cases := []struct {
		name  string
		opts  []RetryOption
		field string
	}{
		{"nil BackOff", []RetryOption{WithBackOff(nil)}, "BackOff"},
		{"negative InitialInterval", []RetryOption{exp(func(b *ExponentialBackOff) { b.InitialInterval = -time.Second })}, "InitialInterval"},
		{"negative MaxInterval", []RetryOption{exp(func(b *ExponentialBackOff) { b.MaxInterval = -time.Second })}, "MaxInterval"},
		{"NaN Multiplier", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = math.NaN() })}, "Multiplier"},
		{"+Inf Multiplier", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = math.Inf(1) })}, "Multiplier"},
		{"-Inf Multiplier", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = math.Inf(-1) })}, "Multiplier"},
		{"Multiplier below 1", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = 0.5 })}, "Multiplier"},
		{"typed nil ExponentialBackOff", []RetryOption{WithBackOff((*ExponentialBackOff)(nil))}, "nil"},
		{"typed nil ConstantBackOff", []RetryOption{WithBackOff((*ConstantBackOff)(nil))}, "nil"},
		{"typed nil BackOff of the caller's", []RetryOption{WithBackOff((*specBackOff)(nil))}, "nil *backoff.specBackOff"},
		{"typed nil clock", []RetryOption{WithClock((*clock.Mock)(nil))}, "clock"},
		{"typed nil Instrumenter", []RetryOption{WithInstrumenter((*specInstrumenter)(nil))}, "Instrumenter"},
		{"negative RandomizationFactor", []RetryOption{exp(func(b *ExponentialBackOff) { b.RandomizationFactor = -0.1 })}, "RandomizationFactor"},
		{"RandomizationFactor above 1", []RetryOption{exp(func(b *ExponentialBackOff) { b.RandomizationFactor = 1.5 })}, "RandomizationFactor"},
		{"NaN RandomizationFactor", []RetryOption{exp(func(b *ExponentialBackOff) { b.RandomizationFactor = math.NaN() })}, "RandomizationFactor"},
		{"bad option to NewExponentialBackOff", []RetryOption{WithBackOff(NewExponentialBackOff(WithMultiplier(math.NaN())))}, "Multiplier"},
		{"struct literal", []RetryOption{WithBackOff(&ExponentialBackOff{InitialInterval: time.Second, MaxInterval: time.Minute, Multiplier: 2, RandomizationFactor: 2})}, "RandomizationFactor"},
		{"negative ConstantBackOff", []RetryOption{WithBackOff(NewConstantBackOff(-time.Second))}, "Interval"},
		{"bad BackOff under WithContext", []RetryOption{WithBackOff(WithContext(context.Background(), NewConstantBackOff(-time.Second)))}, "Interval"},
		{"negative MaxElapsedTime", []RetryOption{WithMaxElapsedTime(-time.Second)}, "MaxElapsedTime"},
		{"nil clock", []RetryOption{WithClock(nil)}, "clock"},
		{"nil classifier", []RetryOption{WithRetryable(nil)}, "WithRetryable"},
		{"nil RetryOption", []RetryOption{nil}, "RetryOption"},
		{"nil Instrumenter", []RetryOption{WithInstrumenter(nil)}, "Instrumenter"},
		{"bad setting after good ones", []RetryOption{WithMaxTries(3), WithNotify(nil), WithMaxElapsedTime(-1)}, "MaxElapsedTime"},
		{"the first bad setting is reported", []RetryOption{WithClock(nil), WithMaxElapsedTime(-1)}, "clock"},
		{"nil option to NewExponentialBackOff", []RetryOption{WithBackOff(NewExponentialBackOff(nil))}, "nil option"},
	}
	check := func(t *testing.T, err error, calls int, field string) {
		t.Helper()
		if calls != 0 {
			t.Errorf("the operation ran %d times, want 0", calls)
		}
		re := specAsError(t, err)
		if !errors.Is(re.Cause, ErrInvalidConfiguration) || !errors.Is(err, ErrInvalidConfiguration) {
			t.Errorf("Cause = %v, want one matching ErrInvalidConfiguration", re.Cause)
		}
		if re.LastErr != nil {
			t.Errorf("LastErr = %v, want nil", re.LastErr)
		}
		if !strings.Contains(err.Error(), field) {
			t.Errorf("message %q does not name %q", err.Error(), field)
		}
	}
	for _, c := range cases {
		for _, e := range specEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				op := specAlways()
				opts := append([]RetryOption{WithClock(clk)}, c.opts...)
				var err error
				waits := specDrive(t, clk, nil, func() { _, err = e.run(context.Background(), op.Run, opts...) })
				check(t, err, op.Count(), c.field)
				if len(waits) != 0 {
					t.Errorf("the driver waited %v before reporting the misconfiguration", waits)
				}
			})
		}
	}
	t.Run("nil operation", func(t *testing.T) {
		errs := map[string]error{}
		_, errs["Retry"] = Retry[int](nil)
		_, errs["RetryCtx"] = RetryCtx[int](context.Background(), nil)
		errs["RetryError"] = RetryError(nil)
		errs["RetryErrorCtx"] = RetryErrorCtx(context.Background(), nil)
		_, errs["Do"] = Do[int](context.Background(), nil)
		errs["DoErr"] = DoErr(context.Background(), nil)
		for name, err := range errs {
			t.Run(name, func(t *testing.T) { check(t, err, 0, "nil") })
		}
	})
	t.Run("nil context", func(t *testing.T) {
		var nilCtx context.Context
		for _, e := range specCtxEntries {
			t.Run(e.name, func(t *testing.T) {
				op := specAlways()
				_, err := e.run(nilCtx, op.Run)
				check(t, err, op.Count(), "context")
			})
		}
	})
}
