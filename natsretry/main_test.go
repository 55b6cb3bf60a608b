package natsretry

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// The tests run against real nats-servers, which they start on free
// loopback ports with their data in a directory that TestMain makes and
// removes, and stop before they end. Without the nats-server command the
// tests that need one skip, and so do the examples, unless
// NATSRETRY_REQUIRE=1, which makes them fail (CI sets it).
var (
	serverRoot string // the directory of every server's data
	exampleSrv *natsServer
	noServer   string // why there is no server for the examples, or ""
)

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		os.Exit(m.Run()) // no test to run (benchmarks only): no server
	}
	sweep(os.TempDir())
	root, err := os.MkdirTemp("", fmt.Sprintf("natsretry-%d-", os.Getpid()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsretry:", err)
		os.Exit(1)
	}
	serverRoot = root
	if s, err := startNATS(); err != nil {
		noServer = err.Error()
		if !required() {
			fmt.Fprintf(os.Stderr, "natsretry: no nats-server (%s): the tests that need one skip\n", noServer)
			_ = flag.Set("test.skip", "^Example")
		}
	} else {
		exampleSrv = s
		ExampleURL = s.url()
	}
	goleak.VerifyTestMain(run{m})
}

type run struct{ m *testing.M }

func (r run) Run() int {
	code := r.m.Run()
	if exampleSrv != nil {
		exampleSrv.stop()
	}
	if err := os.RemoveAll(serverRoot); err != nil {
		fmt.Fprintln(os.Stderr, "natsretry:", err)
		code = 1
	}
	if code == 0 && noServer != "" && required() {
		fmt.Fprintf(os.Stderr, "natsretry: no nats-server, and NATSRETRY_REQUIRE=1: %s\n", noServer)
		code = 1
	}
	return code
}

// required reports whether the environment wants the tests that need a
// server to fail rather than skip when there is none.
func required() bool { return os.Getenv("NATSRETRY_REQUIRE") == "1" }
