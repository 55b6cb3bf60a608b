// Command soak drives 10,000 concurrent callers through the library
// against a flaky loopback HTTP server for a bounded time, and checks that
// nothing leaks and every call is accounted for.
//
// The callers call either through an http.Client whose Transport is
// httpretry.NewTransport (-mode transport), or through policy.Do with
// a Policy of a bulkhead, a retry stage, a breaker and a timeout per
// attempt (-mode policy). The server, on 127.0.0.1, answers each request
// as a seeded draw says: a 200, a 503, a 503 with a Retry-After of a few
// seconds, a reset connection, or a body trickled out slowly; and in
// spells of time that the seed picks, every request fails, as in an
// outage. Callers cancel some of their calls at random moments, and every
// call has a deadline.
//
// It reports the requests made, the calls completed and failed by cause
// (the Cause of the *backoff.Error), the goroutines before and after (once
// every connection is closed; a leak is printed with its stacks), the heap
// in use over time (after a GC, every second), and whether every call that
// started completed or failed, exactly once. It exits 1 if anything is
// wrong, 2 on bad flags.
//
// Usage:
//
//	go run ./cmd/soak [-mode transport|policy] [-callers 10000] [-duration 30s] [flags]
//
// Run it with -h for the flags, which set the callers, the server's mix
// and the guards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	cfg := defaults()
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	cfg.register(fs)
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "soak: unexpected arguments %q\n", fs.Args())
		os.Exit(2)
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	// A first interrupt ends the load early, and the run reports as
	// usual; a second one ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	res, err := run(ctx, cfg, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	report(os.Stdout, res)
	if len(res.failures()) > 0 {
		os.Exit(1)
	}
}
