package setting

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

const settings = Package("pkg")

// The wording: the sentinel's, the package's name if any, the message; a
// %w wraps its argument.
func TestInvalid(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{settings.Invalid("WithX was given %d", -1), "backoff: invalid configuration: pkg: WithX was given -1"},
		{Package("").Invalid("Do was given a nil function"), "backoff: invalid configuration: Do was given a nil function"},
		{settings.Invalid("a guard reports: %w", io.EOF), "backoff: invalid configuration: pkg: a guard reports: EOF"},
		{settings.NilContext(), "backoff: invalid configuration: pkg: Allow was given a nil context"},
		{settings.NotMade("Guard", "New"), "backoff: invalid configuration: pkg: a zero or nil Guard; make one with New"},
	} {
		if !errors.Is(c.err, ErrInvalid) || c.err.Error() != c.want {
			t.Errorf("got %q, want %q matching ErrInvalid", c.err, c.want)
		}
	}
	if err := settings.Invalid("reports: %w", io.EOF); !errors.Is(err, io.EOF) {
		t.Errorf("%v does not wrap io.EOF", err)
	}
}

// A package's own sentinel matches ErrInvalid, and its errors match both,
// in the package's words; another package's errors do not match it. Reason
// quotes an error without the shared words.
func TestSentinel(t *testing.T) {
	sentinel := settings.Sentinel()
	if !errors.Is(sentinel, ErrInvalid) || sentinel.Error() != "backoff: invalid configuration: pkg" {
		t.Errorf("sentinel %q, want one matching ErrInvalid", sentinel)
	}
	if got := Package("").Sentinel().Error(); got != ErrInvalid.Error() {
		t.Errorf("the sentinel of no package reads %q", got)
	}
	err := sentinel.Invalid("Clients is %d: %w", 0, io.EOF)
	if !errors.Is(err, sentinel) || !errors.Is(err, ErrInvalid) || !errors.Is(err, io.EOF) {
		t.Errorf("%v does not match the sentinel, ErrInvalid and io.EOF", err)
	}
	if want := settings.Invalid("Clients is %d: %w", 0, io.EOF).Error(); err.Error() != want {
		t.Errorf("got %q, want the package's words %q", err, want)
	}
	if errors.Is(Package("other").Invalid("x"), sentinel) || errors.Is(settings.Invalid("x"), sentinel) || errors.Is(settings.Sentinel(), sentinel) {
		t.Error("an error that is not the sentinel's matches it")
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{err, "pkg: Clients is 0: EOF"},
		{Package("").Invalid("Do was given a nil function"), "Do was given a nil function"},
		{io.EOF, "EOF"},
	} {
		if got := Reason(c.err); got != c.want {
			t.Errorf("Reason(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

// Of the options, the first mistake is kept; of separate arguments, all,
// joined, and one alone as it is.
func TestFirstAndJoined(t *testing.T) {
	var first error
	settings.Fail(&first, "first")
	settings.Fail(&first, "second")
	Record(&first, io.EOF)
	if !strings.HasSuffix(first.Error(), ": first") {
		t.Errorf("kept %v, want the first", first)
	}
	if Join(nil, nil) != nil || Join(nil, io.EOF, nil) != io.EOF {
		t.Error("Join of nils, or of one error, is not nil, or that error")
	}
	if err := Join(io.EOF, nil, first); !errors.Is(err, io.EOF) || !errors.Is(err, first) || !errors.Is(err, ErrInvalid) {
		t.Errorf("Join = %v, want both", err)
	}
}

type config struct {
	clock   clock.Clock
	fn      func()
	n       int
	ratio   float64
	d       time.Duration
	applied int
	err     error
}

type Option func(*config)

// The options' rules: a nil option or value (typed or not) is recorded,
// with the option's name; a value out of range (NaN included) or a
// negative duration too; the setting is left as it was.
func TestOptionRules(t *testing.T) {
	var nilMock *clock.Mock
	var nilFn func()
	cases := []struct {
		name string
		opt  Option
		want string // "" for none
	}{
		{"nil_option", nil, "New was given a nil Option"},
		{"clock", func(c *config) { settings.Clock(&c.clock, &c.err, clock.NewMock()) }, ""},
		{"nil_clock", func(c *config) { settings.Clock(&c.clock, &c.err, nil) }, "WithClock was given a nil clock"},
		{"typed_nil_clock", func(c *config) { settings.Clock(&c.clock, &c.err, nilMock) }, "WithClock was given a nil *clock.Mock"},
		{"fn", func(c *config) { NotNil(settings, &c.err, &c.fn, func() {}, "WithFn", "function") }, ""},
		{"nil_fn", func(c *config) { NotNil(settings, &c.err, &c.fn, nilFn, "WithFn", "function") }, "WithFn was given a nil function"},
		{"in_range", func(c *config) { Between(settings, &c.err, &c.n, 3, 1, 3, "WithN") }, ""},
		{"out_of_range", func(c *config) { Between(settings, &c.err, &c.n, 4, 1, 3, "WithN") }, "WithN(4) is outside [1, 3]"},
		{"nan", func(c *config) { Between(settings, &c.err, &c.ratio, math.NaN(), 0, 1, "WithRatio") }, "WithRatio(NaN) is outside [0, 1]"},
		{"fraction", func(c *config) { Fraction(settings, &c.err, 1, "WithRate", "rate") }, ""},
		{"fraction_zero", func(c *config) { Fraction(settings, &c.err, 0, "WithRate", "rate") }, "WithRate was given the rate 0; it must lie in (0, 1]"},
		{"fraction_above_1", func(c *config) { Fraction(settings, &c.err, 1.5, "WithRate", "rate") }, "WithRate was given the rate 1.5; it must lie in (0, 1]"},
		{"fraction_nan", func(c *config) { Fraction(settings, &c.err, math.NaN(), "WithRate", "rate") }, "WithRate was given the rate NaN; it must lie in (0, 1]"},
		{"proper_fraction", func(c *config) { ProperFraction(settings, &c.err, 0.999, "WithFactor", "factor") }, ""},
		{"proper_fraction_1", func(c *config) { ProperFraction(settings, &c.err, 1, "WithFactor", "factor") }, "WithFactor was given the factor 1; it must lie in (0, 1)"},
		{"proper_fraction_negative", func(c *config) { ProperFraction(settings, &c.err, -0.5, "WithFactor", "factor") }, "WithFactor was given the factor -0.5; it must lie in (0, 1)"},
		{"proper_fraction_inf", func(c *config) { ProperFraction(settings, &c.err, math.Inf(-1), "WithFactor", "factor") }, "WithFactor was given the factor -Inf; it must lie in (0, 1)"},
		{"thresholds", func(c *config) { Thresholds(settings, &c.err, 0.5, 0.5, "WithT") }, ""},
		{"thresholds_low", func(c *config) { Thresholds(settings, &c.err, 0, 2, "WithT") }, "WithT was given the low threshold 0; it must lie in (0, 1]"},
		{"thresholds_standard", func(c *config) { Thresholds(settings, &c.err, 0.5, math.NaN(), "WithT") }, "WithT was given the standard threshold NaN; it must lie in (0, 1]"},
		{"thresholds_order", func(c *config) { Thresholds(settings, &c.err, 0.9, 0.8, "WithT") }, "WithT was given the low threshold 0.9, above the standard threshold 0.8"},
		{"zero_duration", func(c *config) { NotNegative(settings, &c.err, &c.d, 0, "WithD") }, ""},
		{"negative_duration", func(c *config) { NotNegative(settings, &c.err, &c.d, -time.Second, "WithD") }, "WithD was given a negative duration (-1s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := config{n: 7, ratio: 7, d: 7}
			Apply(settings, &cfg.err, "New", &cfg, []Option{c.opt, func(c *config) { c.applied++ }})
			if cfg.applied != 1 {
				t.Error("the options after it were not applied")
			}
			switch {
			case c.want == "" && cfg.err != nil:
				t.Errorf("err = %v, want none", cfg.err)
			case c.want != "" && (!errors.Is(cfg.err, ErrInvalid) || !strings.HasSuffix(cfg.err.Error(), "pkg: "+c.want)):
				t.Errorf("err = %v, want %q", cfg.err, c.want)
			case c.want != "" && (cfg.clock != nil || cfg.fn != nil || cfg.n != 7 || !(cfg.ratio == 7) || cfg.d != 7):
				t.Errorf("a setting was changed by a value it could not use: %+v", cfg)
			}
		})
	}
}

// The fraction rules report whether the value lies in their interval, the
// ends included or not as they say.
func TestFractionBounds(t *testing.T) {
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []struct {
		v              float64
		fraction, open bool
	}{
		{tiny, true, true}, {0.5, true, true}, {math.Nextafter(1, 0), true, true}, {1, true, false},
		{0, false, false}, {-tiny, false, false}, {math.Nextafter(1, 2), false, false},
		{math.Inf(1), false, false}, {math.NaN(), false, false},
	} {
		var err error
		if got := Fraction(settings, &err, c.v, "WithRate", "rate"); got != c.fraction || got != (err == nil) {
			t.Errorf("Fraction(%v) = %v (err %v), want %v", c.v, got, err, c.fraction)
		}
		err = nil
		if got := ProperFraction(settings, &err, c.v, "WithFactor", "factor"); got != c.open || got != (err == nil) {
			t.Errorf("ProperFraction(%v) = %v (err %v), want %v", c.v, got, err, c.open)
		}
	}
}
