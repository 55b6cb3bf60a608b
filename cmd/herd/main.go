// Command herd shows what a retry policy does to a fleet: it simulates
// clients that fail together and retry with each backoff strategy, and
// reports the work each strategy puts on the server, the time until every
// client succeeded, and the peak load.
//
// With no flags it runs the optimistic-concurrency experiment of the AWS
// Architecture Blog's "Exponential Backoff And Jitter" and a server
// restart, for 100 and 1000 clients, prints one table, and writes charts
// into ./herd-out:
//
//	go run ./cmd/herd
//
// -live asks the same question for real: goroutine clients retry through
// httpretry.Transport against a loopback HTTP server that restarts, one
// strategy after another, each for at most -live-limit (6s by default).
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stderr))
	stop()
	os.Exit(code)
}

// run is the whole command: it returns the exit code, 0 on success, 1 on
// a failure, 2 on a bad command line. The progress bar is drawn on stderr
// only if tty says stderr is a terminal.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, tty bool) int {
	o, err := parseArgs(args, stderr)
	if err != nil {
		var u *usageError
		switch {
		case errors.Is(err, errHelp):
			return 0
		case errors.As(err, &u):
			if !u.printed {
				fmt.Fprintf(stderr, "herd: %s\nRun 'herd -h' for the flags.\n", u.msg)
			}
			return 2
		}
		fmt.Fprintf(stderr, "herd: %v\n", err)
		return 2
	}

	var rows []row
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
	if err != nil {
		fmt.Fprintf(stderr, "herd: %v\n", err)
		return 1
	}
	if err := writeRows(stdout, o.format, rows); err != nil {
		fmt.Fprintf(stderr, "herd: %v\n", err)
		return 1
	}
	if o.chart != "none" {
		paths, err := writeCharts(o.out, o.chart, rows)
		if err != nil {
			fmt.Fprintf(stderr, "herd: charts: %v\n", err)
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

// isTerminal reports whether f is a character device, such as a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
