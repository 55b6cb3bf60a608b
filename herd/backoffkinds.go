package herd

import (
	"strings"
	"time"

	"github.com/herdsafe/backoff"
)

// A BackOffSpec is a kind of BackOff of Strategies and its settings, as
// ParseBackOff reads it from an expression such as "full" or
// "full(base=100ms,cap=5s)".
type BackOffSpec struct {
	// Name is the kind: a name of Strategies.
	Name string
	// Base and Cap are the InitialInterval and the MaxInterval; the
	// "immediate" kind has neither.
	Base, Cap time.Duration
}

// backOffKinds are the kinds of BackOff, in the order Strategies lists
// them, each with what it makes from a base and a cap.
var backOffKinds = []struct {
	name  string
	make  func(base, cap time.Duration) func() backoff.BackOff
	fixed bool // takes no setting
}{
	{"no-jitter", NoJitter, false},
	{"full", FullJitter, false},
	{"equal", EqualJitter, false},
	{"decorrelated", DecorrelatedJitter, false},
	{"default", LibraryDefault, false},
	{"immediate", func(time.Duration, time.Duration) func() backoff.BackOff { return Immediate() }, true},
}

// BackOffKinds returns the names of the kinds of BackOff ParseBackOff
// knows, those of Strategies.
func BackOffKinds() []string {
	var out []string
	for _, k := range backOffKinds {
		out = append(out, k.name)
	}
	return out
}

func (b *BackOffSpec) Kind() string { return b.Name }

// Params are base and cap, or none for "immediate".
func (b *BackOffSpec) Params() []Param {
	for _, k := range backOffKinds {
		if k.name == b.Name && k.fixed {
			return nil
		}
	}
	return []Param{
		{"base", "the first interval (InitialInterval)", &b.Base},
		{"cap", "the largest interval (MaxInterval)", &b.Cap},
	}
}

// ParseBackOff reads a BackOff from expr: a kind of Strategies, with the
// settings base and cap in parentheses where they differ from the base
// and cap given ("full(base=100ms,cap=5s)"). An error matches
// ErrInvalidConfig.
func ParseBackOff(expr string, base, cap time.Duration) (BackOffSpec, error) {
	terms, err := parseTerms(expr)
	switch {
	case err != nil:
		return BackOffSpec{}, err
	case len(terms) != 1:
		return BackOffSpec{}, invalid("%q: a BackOff is one kind; '+' joins guards", clip(expr))
	}
	b := BackOffSpec{Name: terms[0].name, Base: base, Cap: cap}
	if !b.known() {
		return BackOffSpec{}, invalid("%q is not a BackOff; use %s", clip(b.Name), strings.Join(BackOffKinds(), ", "))
	}
	if err := apply(&b, terms[0].args); err != nil {
		return BackOffSpec{}, err
	}
	switch {
	case b.Base < 0 || b.Cap < 0:
		return BackOffSpec{}, invalid("%s: base (%v) and cap (%v) must not be negative", b.Name, b.Base, b.Cap)
	case b.Cap < b.Base:
		return BackOffSpec{}, invalid("%s: cap (%v) is smaller than base (%v)", b.Name, b.Cap, b.Base)
	}
	return b, nil
}

func (b BackOffSpec) known() bool {
	for _, k := range backOffKinds {
		if k.name == b.Name {
			return true
		}
	}
	return false
}

// String returns b as ParseBackOff reads it given base and cap: its kind,
// and its settings that differ from them.
func (b BackOffSpec) String(base, cap time.Duration) string {
	d := BackOffSpec{Name: b.Name, Base: base, Cap: cap}
	return format(&b, &d)
}

// NewBackOff returns the factory of b's BackOffs, a Config.NewBackOff.
func (b BackOffSpec) NewBackOff() func() backoff.BackOff {
	for _, k := range backOffKinds {
		if k.name == b.Name {
			return k.make(b.Base, b.Cap)
		}
	}
	return nil
}
