package herd

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A Spec is a kind of guard or BackOff with its settings, as a strategy
// expression names it: the kind, then the settings that differ from the
// kind's defaults, in parentheses, such as "breaker(open=5s)" or
// "full(base=100ms,cap=5s)". GuardSpec and BackOffSpec are the two sorts.
type Spec interface {
	// Kind is the kind's name in an expression.
	Kind() string
	// Params are the settings, each bound to the field of the Spec it
	// reads and sets.
	Params() []Param
}

// A Param is one setting of a Spec: its name in an expression, what it
// means, and the field it is kept in.
type Param struct {
	Name string
	Doc  string
	// Value points to the field: an *int, a *float64 or a
	// *time.Duration.
	Value any
}

// String formats the field's value as an expression writes it: a whole
// number, a number in its shortest form, a duration (5s, 100ms, 2m0s).
func (p Param) String() string {
	switch v := p.Value.(type) {
	case *int:
		return strconv.Itoa(*v)
	case *float64:
		return strconv.FormatFloat(*v, 'g', -1, 64)
	case *time.Duration:
		return formatDuration(*v)
	}
	return fmt.Sprint(p.Value)
}

// formatDuration is d as time.ParseDuration reads it, without the zero
// units time.Duration.String leaves at its end: 2m, 1h30m, 1.5s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Set parses s into the field: a whole number, a number, or a duration as
// time.ParseDuration reads it. It reports an error matching
// ErrInvalidConfig that names the setting.
func (p Param) Set(s string) error {
	var err error
	switch v := p.Value.(type) {
	case *int:
		var n int
		if n, err = strconv.Atoi(s); err == nil {
			*v = n
			return nil
		}
		return invalid("%s=%s: not a whole number", p.Name, clip(s))
	case *float64:
		var f float64
		if f, err = strconv.ParseFloat(s, 64); err == nil {
			*v = f
			return nil
		}
		return invalid("%s=%s: not a number", p.Name, clip(s))
	case *time.Duration:
		var d time.Duration
		if d, err = time.ParseDuration(s); err == nil {
			*v = d
			return nil
		}
		return invalid("%s=%s: not a duration (write 500ms, 5s, 2m)", p.Name, clip(s))
	}
	return invalid("%s: a setting of type %T cannot be set", p.Name, p.Value)
}

// term is one kind in an expression, with the settings given to it.
type term struct {
	name string
	args [][2]string // name, value
}

// parseTerms reads expr as terms joined by '+': name, or
// name(key=value,...).
func parseTerms(expr string) ([]term, error) {
	var out []term
	for _, part := range splitTop(expr, '+') {
		part = strings.TrimSpace(part)
		t := term{name: part}
		if i := strings.IndexByte(part, '('); i >= 0 {
			if !strings.HasSuffix(part, ")") {
				return nil, invalid("%q: a ( without its closing )", clip(part))
			}
			t.name = strings.TrimSpace(part[:i])
			inner := strings.TrimSpace(part[i+1 : len(part)-1])
			if inner != "" {
				for _, a := range splitTop(inner, ',') {
					k, v, ok := strings.Cut(a, "=")
					k, v = strings.TrimSpace(k), strings.TrimSpace(v)
					if !ok || k == "" || v == "" {
						return nil, invalid("%q: %q is not a setting; write name=value", clip(part), clip(strings.TrimSpace(a)))
					}
					t.args = append(t.args, [2]string{k, v})
				}
			}
		}
		if t.name == "" {
			return nil, invalid("%q: a kind is missing", clip(expr))
		}
		if strings.ContainsAny(t.name, "()=, ") {
			return nil, invalid("%q is not a kind", clip(t.name))
		}
		out = append(out, t)
	}
	return out, nil
}

// maxEcho is how much of a user's input an error quotes back.
const maxEcho = 40

// clip returns s, cut to maxEcho bytes at a character's start and ended
// with "…" if it is longer: an error quotes what it refuses, not pages of
// it.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	i := maxEcho
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// splitTop splits s at each sep outside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[from:i])
				from = i + 1
			}
		}
	}
	return append(out, s[from:])
}

// SplitStrategies splits a comma-separated list of strategy expressions,
// leaving the commas inside parentheses to the settings:
// "retry,breaker(open=5s,failures=3)" is two expressions.
func SplitStrategies(list string) []string {
	var out []string
	for _, s := range splitTop(list, ',') {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// apply sets the settings args of spec, reporting one it does not have.
func apply(spec Spec, args [][2]string) error {
	params := spec.Params()
	given := map[string]bool{}
	for _, a := range args {
		if given[a[0]] {
			return invalid("%s: %s is given twice; give each setting once", spec.Kind(), clip(a[0]))
		}
		given[a[0]] = true
		found := false
		for _, p := range params {
			if p.Name == a[0] {
				if err := p.Set(a[1]); err != nil {
					return invalid("%s: %s", spec.Kind(), reason(err))
				}
				found = true
				break
			}
		}
		if !found {
			return invalid("%s has no setting %q; it has %s", spec.Kind(), clip(a[0]), paramNames(params))
		}
	}
	if x, ok := spec.(exclusiveSettings); ok {
		return x.exclusive(given)
	}
	return nil
}

// exclusiveSettings is a Spec some of whose settings exclude each other
// even at their defaults: exclusive reports the ones an expression gives
// together (given holds their names) that it cannot take, or nil.
type exclusiveSettings interface {
	exclusive(given map[string]bool) error
}

// paramNames lists the names of params, or says there are none.
func paramNames(params []Param) string {
	if len(params) == 0 {
		return "none"
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// format writes spec as an expression term: its kind, and the settings
// that differ from those of defaults, a Spec of the same kind.
func format(spec, defaults Spec) string {
	var args []string
	d := defaults.Params()
	for i, p := range spec.Params() {
		if v := p.String(); i >= len(d) || v != d[i].String() {
			args = append(args, p.Name+"="+v)
		}
	}
	if len(args) == 0 {
		return spec.Kind()
	}
	return spec.Kind() + "(" + strings.Join(args, ",") + ")"
}
