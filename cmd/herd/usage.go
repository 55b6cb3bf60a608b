package main

import (
	"flag"
	"fmt"
)

// usage prints the help: what herd does, what its columns mean, when it
// writes charts, -live, the exit codes, then the flags.
func usage(fs *flag.FlagSet) {
	fmt.Fprint(fs.Output(), `Usage: herd [flags]

herd simulates a fleet of clients that fail together and retry with each
backoff strategy, and prints a row per scenario, fleet size and strategy.
The columns have the same names in the table, the CSV header (-format csv)
and the JSON keys (-format json):

  scenario        occ, restart (live with -live)
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

Charts: -format table (the default) also writes PNG charts into -out
(-chart svg for SVG, -chart none for none). -format csv and -format json
write charts only when -chart is given.

-live asks the restart question for real: for each strategy in turn,
goroutine clients send a GET through httpretry.Transport to a loopback
server of their own that answers 503 for 2s, and really wait what the
policy says. Its times are read on the clients' schedule: each request
carries when it reaches the server by the waits its policy chose plus a
network delay drawn per message (-delay, -delay-stddev), and the server
answers and counts it by that time. A busy machine makes -live slower, not
different; its progress lines give the real time each strategy took.
-scenario, -runs, -seed and -horizon do not apply to it.

Exit status: 0 done, 1 a failure, 2 a bad command line, 130 interrupted
(the first Ctrl-C stops the simulations in progress and prints the rows
that finished, without charts; a second one kills herd at once).

Flags:
`)
	fs.PrintDefaults()
}
