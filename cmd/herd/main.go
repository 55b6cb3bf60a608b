// Command herd shows what a retry schedule does to a fleet: it simulates
// clients that fail together and retry with each backoff strategy, and
// reports the work each strategy puts on the server, the time until every
// client succeeded, and the peak load; and, for a dependency that goes
// down under a steady load, how much the retries and the guards around
// them multiply the load, how soon the fleet is back to normal, and how
// many user calls failed; and, for a server with more work than it can
// do, how much of its capacity the guards keep serving in time, and at
// what latency.
//
// With no flags it runs the optimistic-concurrency experiment of the AWS
// Architecture Blog's "Exponential Backoff And Jitter" and a server
// restart, for 100 and 1000 clients, and the outage of the SRE book's
// retry analysis for 100 clients, prints the tables, and writes PNG
// charts into ./herd-out:
//
//	go run ./cmd/herd
//
// # Output
//
// Each row is one scenario, fleet size and strategy (the -strategies
// name: no-jitter, full, equal, decorrelated, default, immediate, each of
// which takes a base and a cap, as full(base=10ms,cap=1s); for outage and
// overload, see below). -clients takes each fleet size once. Its fields have the same names in the table, the CSV
// header (-format csv) and the JSON keys (-format json):
//
//   - scenario: occ, restart, outage or overload (live with -live).
//   - strategy: the strategy's name.
//   - clients: the fleet size.
//   - runs: how many runs the row averages (-runs); in CSV and JSON, and
//     under the table when it is not 1.
//   - calls: the total work, calls that reached the server.
//   - last_success_s: when the last client that succeeded did so, in
//     seconds; when failed is 0, the time until every client succeeded. The
//     table reads ">T" when some clients were unfinished at the cut-off T,
//     and "-" when no client succeeded.
//   - peak_per_10ms: the most calls that reached the server in one 10 ms
//     window.
//   - failed: clients that did not succeed: they gave up (-max-calls), or
//     were unfinished.
//   - unfinished: the part of failed that was still retrying when the run
//     was cut off at -horizon (at -live-limit with -live). The table
//     explains it below when it is not 0.
//
// Charts are written with the table: -format table (the default) writes a
// load timeline per scenario and fleet size, and the cost against the
// fleet size (a point per fleet size measured), as PNG files into -out,
// which is made, and checked to be writable, before anything is
// simulated; -chart svg writes SVG, -chart none
// nothing. -format csv and -format json write charts only when -chart asks
// for them, so that their output alone is what a script gets.
//
// # Outage
//
// -scenario outage (part of the default run) is the SRE book's analysis
// of retries ("Site Reliability Engineering", chapter 21, "Deciding to
// Retry"): each of -clients clients (100 unless given) starts -rate user
// calls a second (20), as a Poisson process (-arrivals even spaces the
// fleet's evenly); a user call is one request and its retries, up to
// -tries attempts (3) with the waits of -retry (a Policy's default retry
// stage: full jitter from 100 ms, capped at 5 s), through a Policy of the
// client's own: the library's retry stage and the guards of the strategy,
// driven on the simulation's virtual clock. A strategy is a stack of
// guards joined by +, outermost first, each with the settings that differ
// from its defaults ('token-bucket+breaker(open=5s,failures=3)'; herd -h
// lists the kinds and their settings), or a preset: retry (none),
// token-bucket (budget.NewTokenBucket), ratio (budget.NewRatio), ratio-10
// (the SRE book's budget of 10%), breaker (breaker.New), throttle
// (throttle.New) and combined (the token bucket, the breaker and the
// throttle). Each client's guard windows start at a random offset of its
// own (-window-offsets zero starts them all at time 0). The dependency is
// healthy for -warmup (2m, the throttle's window), down for -down (1m:
// every call fails), degraded for -degraded (1m: -degraded-failures, 0.3,
// of the calls fail), then healthy for -healthy (2m). Its rows have two
// tables of their own, the load (in which calls counts the calls the fleet
// sent) and the user calls:
//
//   - outage_x: the calls sent while the dependency was down per user
//     call started then, the amplification of the base load (1: first
//     attempts only); outage_peak_x the same for the busiest 10 ms window
//     of the outage; degraded_x while it was degraded; total_x over the
//     whole run.
//   - recovery_s: how long after the healthy phase began the fleet was
//     back to normal, that is, the load of every second stayed within
//     1.1× the base load either way from then on (retries keep it above,
//     guards that still refuse calls below). The table reads ">T" if it
//     never was; recovered (CSV and JSON) is then false.
//   - user_calls, user_failed: the user calls started, and those that
//     failed: every try failed, or a guard refused one.
//   - warmup_failed_pct, down_failed_pct, degraded_failed_pct,
//     healthy_failed_pct: the share of the user calls started in each
//     phase that failed, in percent.
//   - success_s: how long after the healthy phase began the user calls
//     started in every second succeeded at 99% or more from then on; ">T"
//     if they never did, and success_recovered (CSV and JSON) false.
//
// In CSV, the rows of outage leave the columns of the other scenarios
// empty, and theirs those of outage; in JSON each row has the keys that
// apply to it. Its chart, outage-timeline-N, draws the amplification
// against time, per strategy, over the shaded phases: the mean of each
// bin as a line, its busiest 10 ms window as a band.
//
// # Explorer
//
// -serve 127.0.0.1:8080 serves a page on which a user picks the scenario,
// the fleet size, the retry policy and the guards with their settings (for
// overload, one of its strategies), runs the simulation and sees its chart
// and its row of the table, with the command line that runs the same. The
// page is three files embedded in the command, and fetches nothing from
// elsewhere. The server runs one simulation at a time, of at most 2,000
// clients (400 for overload) and 3 million user calls (2 million calls for
// occ, restart, shed and pushback), for 30 s at most; a run asked for
// while another is in progress cancels it.
//
// The page offers the layers scenario (see Layers, below) too, with
// its own settings (tiers, tries per tier, user calls a second, the
// phases, the servers' capacity) and its strategies side by side: its
// table is the command's, and its chart a bar per strategy and phase of
// the calls the bottom tier receives per user call. A layers run of the
// page makes at most 10 million calls down its chains, counted as user
// calls × tries^tiers × strategies (a few seconds of one core); the
// strategies run one after the other, and a run whose page goes stops
// before the next.
//
// # Overload
//
// -scenario overload (not part of the default run: -scenario overload, or
// all) is a server whose latency grows with the calls in flight, a queue
// in front of herd.DefaultWorkers (200) workers that serve a call in
// |Normal(20 ms, 2 ms)|, 10,000 calls a second, facing a load above its
// capacity: -clients clients (10 unless given) start calls, evenly
// spaced, at half the capacity for 10s, then twice it for 20s, twice it
// with half of the workers lost for 20s, and with all of them back for
// 20s (herd.DefaultStages); a client gives a call up after 1s, and the
// server still serves it. The strategies are none, bulkhead (a fixed
// bulkhead per client, of herd.Server.HealthyConcurrency: the calls in
// flight with which the fleet keeps the healthy server full, by Little's
// law), adaptive-gradient and adaptive-vegas (limiter.New on each of its
// rules), each client its own. Its rows have a table of their own, in
// which calls counts the calls sent; measured after the first stage:
//
//   - goodput: the calls answered in time per second, over the capacity.
//   - p50_x, p99_x: the median and the 99th percentile of the latency of
//     the calls sent (a call given up counts the timeout), over the no-load
//     latency, 40 ms.
//   - timed_out: the share of the calls sent that their client gave up;
//     refused: the share of the calls started that a guard refused.
//   - load_up_s, capacity_down_s, capacity_up_s: how long after the load
//     stepped up, half of the workers were lost, and came back, the
//     fleet's limit settled (see herd.StageResult.Settle); "-" in the table
//     (empty in CSV, null in JSON) for a fleet whose limit does not move,
//     ">T" for one that had not settled by the end of its stage; settled
//     (CSV and JSON) is false then.
//
// Its chart, overload-timeline-N, draws the goodput, the p99 and the
// fleet's limit against time, per strategy, over the shaded stages.
//
// # Live
//
// -live asks the restart question for real: for each strategy, one after
// another, goroutine clients send a GET through httpretry.Transport with
// the strategy's BackOff to a loopback HTTP server of their own, and really
// wait what the BackOff tells them. The server answers 503 for the first 2s
// and then serves -capacity requests per 10 ms window.
//
// Time in -live is read on the clients' schedule, not on the machine's
// clock, so that a busy machine makes the run slower but does not change
// its figures: every request carries the time it reaches the server on its
// client's schedule (the sum of the waits its BackOff chose, plus, for each
// message, a network delay drawn as the simulation draws it: -delay,
// -delay-stddev), and the server answers and counts it by that time. Each
// strategy gets -live-limit (6s by default) of that time; on the machine's
// clock it takes about as long, and a line on stderr tells how long. If
// the machine falls so far behind that a strategy is still running after
// twice -live-limit (or -live-limit plus 5s, if that is longer), its
// clients still retrying stop and count as unfinished, and that line says
// so.
//
// # Layers
//
// -scenario layers runs herd.Layers on flags of its own (-tiers, -tries,
// -rate, -warmup, -down, -healthy, -capacity, -strategies, -format): a
// chain of tiers, each retrying the one below, over a dependency that is
// down for a while. Its columns (the table's, the CSV header and the JSON
// keys of -format csv and json) are scenario, strategy, tiers, tries,
// warmup_x, down_x and healthy_x (the calls the dependency received per
// user call in each phase), down_failed_pct (the user calls that failed
// while it was down) and recovery_s (how long after it came back the
// chain was healthy again; "-" in the table, null in JSON, if it never
// was). A setting that herd.LayersConfig reads as "the default" (0) is
// refused, not replaced.
//
// # Exit status
//
// 0 when done, 1 on a failure, 2 on a bad command line (the flags, or a
// simulation they describe that the engine rejects), and 130 when
// interrupted: the first Ctrl-C (SIGINT) stops the simulations in
// progress, herd prints the rows that finished, writes no chart and exits
// 130; a second Ctrl-C kills it at once.
//
// Run herd -h for the flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/herdsafe/backoff/herd"
)

// exitInterrupted is the exit code after an interrupt: 128 + SIGINT, as a
// shell reports a command that SIGINT ended.
const exitInterrupted = 130

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // from now on, a second Ctrl-C ends the process at once
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stderr))
	stop()
	os.Exit(code)
}

// run is the whole command: it returns the exit code, 0 on success, 1 on
// a failure, 2 on a bad command line, exitInterrupted if ctx is done before
// the rows are. The progress bar is drawn on stderr only if tty says
// stderr is a terminal.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, tty bool) int {
	if isLayers(args) {
		return runLayers(ctx, args, stdout, stderr)
	}
	o, err := parseArgs(args, stderr)
	if err != nil {
		var u *usageError
		switch {
		case errors.Is(err, errHelp):
			return 0
		case errors.As(err, &u):
			if !u.printed {
				fmt.Fprintf(stderr, "herd: %s\nRun 'herd -h' for the flags.\n", trimPrefix(u.msg))
			}
			return 2
		}
		report(stderr, err)
		return 2
	}
	if o.serve != "" {
		return serve(ctx, o.serve, stderr)
	}
	if err := checkOut(o); err != nil {
		fmt.Fprintf(stderr, "herd: -out: %s\nRun 'herd -h' for the flags.\n", err)
		return 2
	}
	return execute(ctx, o, stdout, stderr, tty)
}

// checkOut makes sure, before anything is simulated, that the charts'
// folder can be written: it makes it, if it is not there, and writes and
// removes a file in it.
func checkOut(o *options) error {
	if o.chart == "none" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("cannot make the charts' folder: %w", err)
	}
	f, err := os.CreateTemp(o.out, ".herd-*")
	if err != nil {
		return fmt.Errorf("cannot write in the charts' folder: %w", err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// execute runs what the checked options ask for and returns the exit code.
func execute(ctx context.Context, o *options, stdout, stderr io.Writer, tty bool) int {
	var (
		rows []row
		err  error
	)
	if o.live {
		rows, err = live(ctx, o, stderr)
	} else {
		var bar io.Writer
		if tty && !o.quiet {
			bar = stderr
		}
		p := newProgress(bar, jobCount(o))
		rows, err = sweep(ctx, o, p.tick)
		p.finish()
	}
	if err != nil && ctx.Err() != nil {
		// Interrupted: what finished, and nothing more.
		if werr := writeRows(stdout, o.format, rows); werr != nil {
			report(stderr, werr)
		}
		fmt.Fprintf(stderr, "herd: interrupted: %d of %d rows finished, printed above; no chart written\n", len(rows), rowCount(o))
		return exitInterrupted
	}
	if err != nil {
		report(stderr, err)
		return 1
	}
	if err := writeRows(stdout, o.format, rows); err != nil {
		report(stderr, err)
		return 1
	}
	if o.chart != "none" {
		paths, err := writeCharts(o.out, o.chart, rows)
		if err != nil {
			fmt.Fprintf(stderr, "herd: charts: %s\n", trimPrefix(err.Error()))
			return 1
		}
		if !o.quiet {
			plural := "s"
			if len(paths) == 1 {
				plural = ""
			}
			fmt.Fprintf(stderr, "herd: wrote %d chart%s to %s\n", len(paths), plural, o.out)
		}
	}
	return 0
}

// report prints err on stderr with the command's prefix, once: the
// errors of the herd package carry the same prefix already.
func report(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "herd: %s\n", trimPrefix(err.Error()))
}

// trimPrefix removes a leading "herd: " from a message, or the words of
// herd.ErrInvalidConfig ("backoff: invalid configuration: herd: ").
func trimPrefix(msg string) string {
	return strings.TrimPrefix(strings.TrimPrefix(msg, herd.ErrInvalidConfig.Error()+": "), "herd: ")
}

// isTerminal reports whether f is a character device, such as a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
