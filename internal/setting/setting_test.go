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
