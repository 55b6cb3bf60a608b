package herd

import (
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// A Stack is the guards of every client of the Outage scenario, outermost
// first, as they stand inside the retry stage of the client's Policy:
// policy.New(policy.Retry(...), policy.Guard(g[0]), policy.Guard(g[1]),
// ...). Its NewGuards is a Config.NewGuards. ParseStack reads one from an
// expression, such as "token-bucket+breaker(open=5s)".
type Stack struct {
	// Guards are the guards' kinds and settings, outermost first; none
	// means retries alone.
	Guards []GuardSpec
	// ZeroOffsets lays out the windows of every client's guards (those of
	// the ratio budget and the throttle) from time 0, all together, as if
	// the whole fleet had made its guards in one instant. By default each
	// client's windows start at a random offset, drawn from its seeded
	// random source, as those of clients started at different times do:
	// otherwise the counts of every client leave their windows at the same
	// instants, and a ratio budget's bursts of retries come together.
	ZeroOffsets bool
}

// presets are the names that stand for a stack, as OutageStrategies
// lists them. A kind's name alone is also a stack: the kind on its
// defaults.
var presets = []struct{ name, expr string }{
	{"retry", ""},
	{"ratio-10", "ratio(ratio=0.1,reserve=0)"},
	{"combined", "token-bucket+breaker+throttle"},
}

// ParseStack reads a stack of guards from expr: guard kinds joined by '+',
// outermost first, each with the settings that differ from its defaults
// in parentheses, such as "token-bucket+breaker(open=5s,failures=3)". The
// kinds are those of GuardKinds. The names of OutageStrategies stand for
// their stacks: "retry" for no guard, "ratio-10" for
// "ratio(ratio=0.1,reserve=0)", "combined" for
// "token-bucket+breaker+throttle"; a preset of one guard takes settings as
// its kind does ("ratio-10(window=5s)"). The settings are checked by the
// guards themselves: see Stack.Validate. An error matches
// ErrInvalidConfig.
func ParseStack(expr string) (Stack, error) {
	terms, err := parseTerms(expr)
	if err != nil {
		return Stack{}, err
	}
	var st Stack
	for _, t := range terms {
		specs, err := guardTerm(t, len(terms))
		if err != nil {
			return Stack{}, err
		}
		st.Guards = append(st.Guards, specs...)
	}
	return st, nil
}

// guardTerm returns the guards of one term of a stack of n terms.
func guardTerm(t term, n int) ([]GuardSpec, error) {
	for _, p := range presets {
		if p.name != t.name {
			continue
		}
		if p.expr == "" {
			if n > 1 || len(t.args) > 0 {
				return nil, invalid("%q is retries without a guard; it takes no setting and joins no guard", p.name)
			}
			return nil, nil
		}
		inner, err := ParseStack(p.expr)
		if err != nil {
			return nil, err
		}
		if len(t.args) > 0 {
			if len(inner.Guards) != 1 {
				return nil, invalid("%q is %s, several guards: give the settings to each of them", p.name, p.expr)
			}
			if err := apply(inner.Guards[0], t.args); err != nil {
				return nil, err
			}
		}
		return inner.Guards, nil
	}
	k, ok := guardKind(t.name)
	if !ok {
		return nil, invalid("%q is not a guard; use %s, or a preset: %s", clip(t.name), strings.Join(guardKindNames(), ", "), strings.Join(presetNames(), ", "))
	}
	spec := k.New()
	if err := apply(spec, t.args); err != nil {
		return nil, err
	}
	return []GuardSpec{spec}, nil
}

func guardKindNames() []string {
	var out []string
	for _, k := range guardKinds {
		out = append(out, k.Name)
	}
	return out
}

func presetNames() []string {
	var out []string
	for _, p := range presets {
		out = append(out, p.name)
	}
	return out
}

// String returns the stack as ParseStack reads it: each guard's kind and
// the settings that differ from its defaults, joined by '+'; "retry" for
// no guard.
func (s Stack) String() string {
	if len(s.Guards) == 0 {
		return "retry"
	}
	parts := make([]string, len(s.Guards))
	for i, g := range s.Guards {
		k, ok := guardKind(g.Kind())
		if !ok {
			parts[i] = g.Kind()
			continue
		}
		parts[i] = format(g, k.New())
	}
	return strings.Join(parts, "+")
}

// NewGuards makes the guards of one client, outermost first, on the
// simulation's clock clk, drawing from random: each window's offset first,
// in the order of the guards, then what the guards draw themselves (the
// throttle's rejections). It is a Config.NewGuards.
func (s Stack) NewGuards(clk clock.Clock, random func() float64) []guard.Guard {
	env := GuardEnv{Clock: clk, Random: random, Offset: func(d time.Duration) time.Duration {
		if s.ZeroOffsets {
			return 0
		}
		return min(time.Duration(random()*float64(d)), d-1)
	}}
	gs := make([]guard.Guard, len(s.Guards))
	for i, g := range s.Guards {
		gs[i] = g.NewGuard(env)
	}
	return gs
}

// Validate makes one client's guards and reports the first whose settings
// the guard rejects, as an error matching ErrInvalidConfig that names the
// guard and the option, or nil.
func (s Stack) Validate() error {
	random := func() float64 { return 0.5 }
	for i, g := range s.NewGuards(clock.NewMock(), random) {
		if g == nil {
			return invalid("guard %d (%s) is nil", i+1, s.Guards[i].Kind())
		}
		if v, ok := g.(guard.Validator); ok {
			if err := v.Validate(); err != nil {
				// A guard's error names its package, which may be the
				// kind's name too (breaker): name it once.
				kind := s.Guards[i].Kind()
				return invalid("%s: %s", kind, strings.TrimPrefix(reason(err), kind+": "))
			}
		}
	}
	return nil
}

// Strategy returns the stack as a Strategy of the Outage scenario, with
// the BackOff newBackOff and the stack's expression as its name.
func (s Stack) Strategy(newBackOff func() backoff.BackOff) Strategy {
	st := Strategy{Name: s.String(), NewBackOff: newBackOff}
	if len(s.Guards) > 0 {
		st.NewGuards = s.NewGuards
	}
	return st
}
