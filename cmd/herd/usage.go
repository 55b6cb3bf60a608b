package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/herdsafe/backoff/herd"
)

// guardHelp lists the kinds of guard with their settings and defaults,
// from the herd package's table of them.
func guardHelp() string {
	var b strings.Builder
	for _, k := range herd.GuardKinds() {
		fmt.Fprintf(&b, "  %-14s%s\n", k.Name, k.Doc)
		for _, p := range k.New().Params() {
			fmt.Fprintf(&b, "    %-12s%s (default %s)\n", p.Name, p.Doc, p.String())
		}
	}
	return b.String()
}

// usage prints the help: what herd does, what its columns mean, when it
// writes charts, -live, the exit codes, then the flags.
func usage(fs *flag.FlagSet) {
	fmt.Fprint(fs.Output(), `Usage: herd [flags]

herd simulates a fleet of clients that fail together and retry with each
backoff strategy, and prints a row per scenario, fleet size and strategy.
The columns have the same names in the table, the CSV header (-format csv)
and the JSON keys (-format json):

  scenario        occ, restart, outage, shed, pushback, overload (live with -live)
  strategy        the -strategies name
  clients         the fleet size
  runs            runs the row averages (-runs); CSV and JSON only
  calls           the total work: calls that reached the server
  last_success_s  when the last client that succeeded did so, in seconds;
                  when failed is 0, the time until every client succeeded.
                  The table reads ">T" when clients were unfinished at the
                  cut-off T, and "-" when no client succeeded
  peak_per_10ms   the most calls that reached the server in one 10 ms window
  failed          clients that did not succeed: they gave up (-max-calls),
                  or are unfinished
  unfinished      the part of failed that was still retrying when the run
                  was cut off at -horizon (-live-limit with -live)

The shed and pushback scenarios are a restart against a server that serves
-capacity requests at once, each in 10 ms, and sheds the others with a 503:
bare in shed, with the Retry-After of package httpshed in pushback, which
the clients wait as package httpretry does.

The outage scenario is a fleet under a steady load whose dependency goes
down: each client starts -rate user calls a second (-arrivals: a Poisson
process by default, or evenly spaced), and a user call is one request and
its retries, up to -tries attempts with the waits of -retry, through a
Policy of its own: the retry stage and the guards of the strategy. The
dependency is healthy for -warmup, down for -down (every call fails),
degraded for -degraded (-degraded-failures of the calls fail), then
healthy for -healthy.

Its strategies are stacks of guards, outermost first, joined by +, each
with the settings that differ from its defaults in parentheses:

  -strategies 'token-bucket+breaker(open=5s,failures=3)'

`+guardHelp()+`
The presets: retry (no guard), token-bucket, ratio, ratio-10 (the SRE
book's 10%: ratio(ratio=0.1,reserve=0)), breaker, throttle, combined
(token-bucket+breaker+throttle). Each client's guard windows start at a
random offset of its own (-window-offsets zero starts them all at 0).
The BackOffs of occ and restart take settings too: full(base=10ms,cap=1s).

The outage rows have two tables of their own, the load the fleet sent
(calls counts the calls sent) and its user calls, with these columns (in
CSV and JSON too, where its rows leave the columns of the other scenarios
empty, and theirs these):

  outage_x        the calls sent while the dependency was down, per user
                  call started then: the amplification of the base load
                  (1: first attempts only; 3: every user call tried 3 times)
  outage_peak_x   the same for the busiest 10 ms window of the outage
  degraded_x      the amplification while degraded
  total_x         the amplification over the whole run
  recovery_s      how long after the healthy phase began the fleet was back
                  to normal: from then on, the load of every second stayed
                  within 1.1× the base load either way (retries keep it
                  above, guards still refusing calls below). The table
                  reads ">T" if that never happened
  recovered       false if it never happened (CSV and JSON only)
  user_calls      the user calls the fleet started
  user_failed     those that failed: every try failed, or a guard refused
  warmup_failed_pct, down_failed_pct, degraded_failed_pct,
  healthy_failed_pct
                  the share of the user calls started in each phase that
                  failed, in percent
  success_s       how long after the healthy phase began the user calls
                  started in every second succeeded at 99% or more. The
                  table reads ">T" if that never happened
  success_recovered
                  false if it never happened (CSV and JSON only)

The overload scenario (-scenario overload, or all; not run by default)
is a server whose latency grows with the calls in flight, a queue in
front of 200 workers (10,000 calls/s; without a queue, 40 ms a call on
average, 120 ms at the 99th percentile: its service times are lognormal;
-server steady is the kinder model of earlier versions, even arrivals and
nearly constant service times), facing -clients clients (10 unless
given) that send calls as a Poisson process at half its capacity for
10s, then twice it for 20s, twice it with half of the workers lost for
20s, and with all of them back for 20s; a client gives a call up after
1s, which the server still serves. The strategies: none, bulkhead (a
fixed bulkhead per client, set for the healthy server by Little's law),
adaptive-gradient and adaptive-vegas (the adaptive concurrency limiter
of package limiter on each of its rules). The server may protect itself
too: -queue lifo, -queue-limit N, -drop-expired. It has a table of its own, in
which calls counts the calls sent, and these columns, measured after the
first 10s:

  goodput         the calls answered in time per second, over the capacity
  p50_x, p99_x    the median and the 99th percentile of the latency of the
                  calls sent (a timed-out call counts 1s), over the no-load
                  latency (mean)
  p99_p99         the 99th percentile over the no-load 99th percentile
  timed_out       the share of the calls sent that their client gave up
  server_refused  the share of the calls sent that the server's queue
                  refused or dropped
  refused         the share of the calls started that a guard refused
  load_up_s, capacity_down_s, capacity_up_s
                  how long after the load stepped up, half of the workers
                  were lost, and came back, the fleet's limit settled
                  (within 10% of where it ended up); "-" in the table for a
                  limit that does not move, ">T" for one that had not
                  settled by the end of its stage
  settled         false if one had not (CSV and JSON only)

Charts: -format table (the default) also writes PNG charts into -out
(-chart svg for SVG, -chart none for none): a load timeline per scenario
and fleet size (for outage, the amplification against time, over the
shaded phases; for overload, the goodput, the p99 and the fleet's limit
against time), and the cost against the fleet size. -format csv and
-format json write charts only when -chart is given.

-live asks the restart question for real: for each strategy in turn,
goroutine clients send a GET through httpretry.Transport to a loopback
server of their own that answers 503 for 2s, and really wait what the
BackOff says. Its times are read on the clients' schedule: each request
carries when it reaches the server by the waits its BackOff chose plus a
network delay drawn per message (-delay, -delay-stddev), and the server
answers and counts it by that time. A busy machine makes -live slower, not
different; its progress lines give the real time each strategy took.
-scenario, -runs, -seed, -horizon and the outage flags do not apply to
it.

-serve 127.0.0.1:8080 serves the explorer page instead: pick the scenario
(any of them), the fleet size, the retry policy and the guards with their
settings (for overload, one of its strategies; for layers, its tiers,
tries, phases and strategies), run it, and see the chart and the table,
with the command line that runs the same. Several
strategies, fleet sizes and runs compare in one chart. Runs are bounded
in size and in time; each belongs to its tab, and at most two simulate
at once.

-base, -cap, -capacity and -max-calls do not apply to outage and
overload (-base and -cap not to pushback either, whose clients wait the
Retry-After), nor -rate, -tries and the phases to overload, nor -server,
-queue, -queue-limit and -drop-expired to the others; -clients defaults
to 100 clients for outage and 10 for overload.

Exit status: 0 done, 1 a failure, 2 a bad command line, 130 interrupted
(the first Ctrl-C stops the simulations in progress and prints the rows
that finished, without charts; a second one kills herd at once).

Flags:
`)
	fs.PrintDefaults()
}
