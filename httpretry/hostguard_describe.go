package httpretry

import "github.com/herdsafe/backoff/guard"

var _ guard.Describer = (*HostGuard)(nil)

// hostsMetric is what a HostGuard reports of itself. Each host's guard is
// observed on its own (Guard returns it), under a name of yours.
var hostsMetric = &guard.Metric{Name: "per_host.hosts", Kind: guard.Level, Unit: "{host}", Help: "Hosts that have a guard of their own now."}

var hostGuardDescription = guard.Description{Kind: "per_host", Series: []guard.Series{{Metric: hostsMetric}}}

// Describe returns what a HostGuard reports to the telemetry modules, of
// kind "per_host": the hosts that have a guard now. A HostGuard is no
// guard.Loader: its load is each host's guard's.
func (h *HostGuard) Describe() guard.Description { return hostGuardDescription }

// ReadMetrics writes the value of Describe's series, read from Hosts,
// which takes the HostGuard's mutex briefly. It allocates nothing.
func (h *HostGuard) ReadMetrics(v []float64) { v[0] = float64(h.Hosts()) }
