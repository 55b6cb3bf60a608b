package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/herdsafe/backoff/herd"
)

// Which flags apply where: a flag given where it would change nothing is
// a usage error, never ignored.

// scenarioFlags are the flags that set some of the scenarios alone, with
// those scenarios: given to a run of none of them, a flag would change
// nothing.
var scenarioFlags = map[string][]herd.Scenario{
	"arrivals":          {herd.Outage},
	"degraded":          {herd.Outage},
	"degraded-failures": {herd.Outage},
	"down":              {herd.Outage},
	"healthy":           {herd.Outage},
	"rate":              {herd.Outage},
	"retry":             {herd.Outage},
	"tries":             {herd.Outage},
	"warmup":            {herd.Outage},
	"window-offsets":    {herd.Outage},
	// In pushback each client waits the server's Retry-After, whatever
	// its BackOff's base and cap: they change nothing there.
	"base":         {herd.OCC, herd.Restart, herd.Shed},
	"cap":          {herd.OCC, herd.Restart, herd.Shed},
	"max-calls":    {herd.OCC, herd.Restart, herd.Shed, herd.Pushback},
	"capacity":     {herd.Restart, herd.Shed, herd.Pushback},
	"server":       {herd.Overload},
	"queue":        {herd.Overload},
	"queue-limit":  {herd.Overload},
	"drop-expired": {herd.Overload},
}

// unusedFlag returns the first flag of set, by name, that sets only
// scenarios outside run, with the scenarios it sets; or "".
func unusedFlag(run []herd.Scenario, set map[string]bool) (name, sets string) {
	for _, name := range slices.Sorted(maps.Keys(scenarioFlags)) {
		if !set[name] || slices.ContainsFunc(scenarioFlags[name], func(sc herd.Scenario) bool { return slices.Contains(run, sc) }) {
			continue
		}
		names := make([]string, len(scenarioFlags[name]))
		for i, sc := range scenarioFlags[name] {
			names[i] = string(sc)
		}
		return name, strings.Join(names, ", ")
	}
	return "", ""
}

// checkScenarioFlags reports a flag of set that sets none of the
// scenarios run, as -scenario (list) names them.
func checkScenarioFlags(run []herd.Scenario, set map[string]bool, list string) error {
	if name, sets := unusedFlag(run, set); name != "" {
		return usagef("-%s sets %s, which -scenario %s does not run", name, sets, list)
	}
	return nil
}

// notLive says, for each flag that does not apply to -live, why; -live
// runs a server restart for real, so the flags of the other scenarios
// alone do not apply either (see checkMode).
var notLive = map[string]string{
	"scenario": "-live always runs a server restart",
	"runs":     "-live runs each strategy once",
	"seed":     "the order in which requests reach the live server cannot be repeated",
	"horizon":  "-live is bounded by -live-limit",
	"serve":    "-serve runs the explorer page, which simulates",
}

// checkMode rejects the flags set on the command line that do not apply to
// the mode asked for, rather than ignoring them.
func checkMode(live bool, set map[string]bool) error {
	if !live {
		if set["live-limit"] {
			return usagef("-live-limit applies only with -live")
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(notLive)) {
		if set[name] {
			return usagef("-%s does not apply to -live: %s", name, notLive[name])
		}
	}
	if name, sets := unusedFlag([]herd.Scenario{herd.Restart}, set); name != "" {
		return usagef("-%s does not apply to -live: it sets %s; -live runs a server restart", name, sets)
	}
	return nil
}
