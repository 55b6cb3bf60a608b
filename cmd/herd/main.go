// Command herd shows what a retry policy does to a fleet: it simulates
// clients that fail together and retry with each backoff strategy, and
// reports the work each strategy puts on the server, the time until every
// client succeeded, and the peak load.
//
// With no flags it runs the optimistic-concurrency experiment of the AWS
// Architecture Blog's "Exponential Backoff And Jitter" and a server
// restart, for 100 and 1000 clients, prints one table, and writes PNG
// charts into ./herd-out:
//
//	go run ./cmd/herd
//
// # Output
//
// Each row is one scenario, fleet size and strategy (the -strategies
// name: no-jitter, full, equal, decorrelated, default, immediate). Its
// fields have the same names in the table, the CSV header (-format csv)
// and the JSON keys (-format json):
//
//   - scenario: occ or restart (live with -live).
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
// fleet size, as PNG files into -out; -chart svg writes SVG, -chart none
// nothing. -format csv and -format json write charts only when -chart asks
// for them, so that their output alone is what a script gets.
//
// # Live
//
// -live asks the restart question for real: for each strategy, one after
// another, goroutine clients send a GET through httpretry.Transport with
// the strategy's policy to a loopback HTTP server of their own, and really
// wait what the policy tells them. The server answers 503 for the first 2s
// and then serves -capacity requests per 10 ms window.
//
// Time in -live is read on the clients' schedule, not on the machine's
// clock, so that a busy machine makes the run slower but does not change
// its figures: every request carries the time it reaches the server on its
// client's schedule (the sum of the waits its policy chose, plus, for each
// message, a network delay drawn as the simulation draws it: -delay,
// -delay-stddev), and the server answers and counts it by that time. Each
// strategy gets -live-limit (6s by default) of that time; on the machine's
// clock it takes about as long, and a line on stderr tells how long. If
// the machine falls so far behind that a strategy is still running after
// twice -live-limit (or -live-limit plus 5s, if that is longer), its
// clients still retrying stop and count as unfinished, and that line says
// so.
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
	return execute(ctx, o, stdout, stderr, tty)
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

// trimPrefix removes a leading "herd: " from a message.
func trimPrefix(msg string) string { return strings.TrimPrefix(msg, "herd: ") }

// isTerminal reports whether f is a character device, such as a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
