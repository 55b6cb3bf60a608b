package main

// The strategies and scenarios a run takes, as the -strategies and
// -scenarios flags choose them.

import (
	"slices"
	"strings"

	"github.com/herdsafe/backoff/herd"
)

func scenarioNames() []string {
	var out []string
	for _, sc := range herd.Scenarios() {
		out = append(out, string(sc))
	}
	return out
}

func strategyNames() []string { return herd.BackOffKinds() }

func outageStrategyNames() []string { return strategyList(herd.OutageStrategies()) }

func strategyList(strategies []herd.Strategy) []string {
	var out []string
	for _, s := range strategies {
		out = append(out, s.Name)
	}
	return out
}

// pickStrategies sets the strategies of each scenario from the -strategies
// list s: all of them for "all"; otherwise each scenario runs those of
// the named strategies it has, and one that has none of them is left out.
// An item whose kind is a BackOff (full, full(base=10ms)) is a strategy
// of occ, restart and -live; any other is read as a stack of guards, a
// strategy of outage. An item neither reads as is an error, and so is a
// list that leaves nothing to run.
func (o *options) pickStrategies(s string) error {
	overloadAll := herd.OverloadStrategies(herd.Config{Clients: defaultOverloadClients})
	o.strategies, o.outageStrategies, o.overloadStrategies = nil, nil, nil
	all := strings.TrimSpace(s) == "all"
	if all {
		s = strings.Join(slices.Concat(strategyNames(), outageStrategyNames(), overloadStrategyNames()), ",")
	}
	for _, f := range herd.SplitStrategies(s) {
		if k := slices.IndexFunc(overloadAll, func(st herd.Strategy) bool { return st.Name == f }); k >= 0 {
			if !slices.ContainsFunc(o.overloadStrategies, func(x herd.Strategy) bool { return x.Name == f }) {
				o.overloadStrategies = append(o.overloadStrategies, overloadAll[k])
			}
			if all || !isGuardStack(f) {
				continue
			}
			// bulkhead named alone is a guard of outage as well: both
			// run it (all has outage's own).
		}
		if isBackOff(f) {
			b, err := herd.ParseBackOff(f, o.base, o.cap)
			if err != nil {
				return usagef("-strategies: %s", trimPrefix(err.Error()))
			}
			st := herd.Strategy{Name: b.String(o.base, o.cap), NewBackOff: b.NewBackOff()}
			if !slices.ContainsFunc(o.strategies, func(x herd.Strategy) bool { return x.Name == st.Name }) {
				o.strategies = append(o.strategies, st)
			}
			continue
		}
		stack, err := herd.ParseStack(f)
		if err != nil && !isGuardStack(f) {
			return usagef("-strategies: %s; the BackOffs are %s", trimPrefix(err.Error()), strings.Join(strategyNames(), ", "))
		}
		if err != nil {
			return usagef("-strategies: %s", trimPrefix(err.Error()))
		}
		if err := stack.Validate(); err != nil {
			return usagef("-strategies: %s", trimPrefix(err.Error()))
		}
		stack.ZeroOffsets = o.zeroOffsets
		st := stack.Strategy(o.retry.NewBackOff())
		if slices.Contains(outageStrategyNames(), f) {
			st.Name = f // a preset keeps its name
		}
		if !slices.ContainsFunc(o.outageStrategies, func(x herd.Strategy) bool { return x.Name == st.Name }) {
			o.outageStrategies = append(o.outageStrategies, st)
		}
	}
	if o.live {
		if len(o.strategies) == 0 {
			return usagef("-strategies: -live compares the restart strategies, %s", strings.Join(strategyNames(), ", "))
		}
		return nil
	}
	o.scenarios = slices.DeleteFunc(o.scenarios, func(sc herd.Scenario) bool {
		_, strategies := o.plan(sc)
		return len(strategies) == 0
	})
	if len(o.scenarios) == 0 {
		return usagef("-strategies: no scenario asked for has any of them: occ and restart have %s, outage %s, overload %s",
			strings.Join(strategyNames(), ", "), strings.Join(outageStrategyNames(), ", "), strings.Join(overloadStrategyNames(), ", "))
	}
	return nil
}

// isGuardStack reports whether every kind of the strategy expression f
// is a guard or a preset of outage, whatever its settings: an error in
// it is about those settings, and the BackOffs are no help.
func isGuardStack(f string) bool {
	depth, name, names := 0, []byte{}, []string{}
	for i := 0; i < len(f); i++ {
		switch c := f[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '+' && depth == 0:
			names, name = append(names, strings.TrimSpace(string(name))), name[:0]
		case depth == 0:
			name = append(name, c)
		}
	}
	names = append(names, strings.TrimSpace(string(name)))
	for _, n := range names {
		if !slices.Contains(outageStrategyNames(), n) && !slices.ContainsFunc(herd.GuardKinds(), func(k herd.GuardKind) bool { return k.Name == n }) {
			return false
		}
	}
	return true
}

// isBackOff reports whether the strategy expression f names a BackOff,
// by its first kind.
func isBackOff(f string) bool {
	name := f
	if i := strings.IndexAny(name, "(+"); i >= 0 {
		name = name[:i]
	}
	return slices.Contains(herd.BackOffKinds(), strings.TrimSpace(name))
}

// plan returns the fleet sizes and the strategies of scenario sc.
func (o *options) plan(sc herd.Scenario) ([]int, []herd.Strategy) {
	switch sc {
	case herd.Outage:
		return o.outageClients, o.outageStrategies
	case herd.Overload:
		return o.overloadClients, o.overloadStrategies
	}
	return o.clients, o.strategies
}
