package amqpretry

import (
	"flag"
	"fmt"
	"os"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/goleak"
)

// The tests run against a real RabbitMQ, which TestMain starts once on
// free loopback ports (it takes some seconds), with an Erlang port mapper
// of its own, both stopped when the tests end, their data in a directory
// TestMain removes. The tests that restart it restart this one. Without
// rabbitmq-server the tests that need it skip, and so do the examples,
// unless AMQPRETRY_REQUIRE=1, which makes them fail (CI sets it).
var (
	broker   *rabbit
	noBroker string // why there is no broker, or ""
)

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		os.Exit(m.Run()) // no test to run (benchmarks only): no server
	}
	amqp.SetLogger(quiet{})
	sweep(os.TempDir())
	root, err := os.MkdirTemp("", fmt.Sprintf("amqpretry-%d-", os.Getpid()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "amqpretry:", err)
		os.Exit(1)
	}
	if testing.Short() {
		noBroker = "-short"
	} else if r, err := startRabbit(root); err != nil {
		noBroker = err.Error()
	} else {
		broker = r
		ExampleURL = r.url()
	}
	if broker == nil && !required() {
		fmt.Fprintf(os.Stderr, "amqpretry: no RabbitMQ (%s): the tests that need one skip\n", noBroker)
		_ = flag.Set("test.skip", "^Example")
	}
	goleak.VerifyTestMain(run{m, root})
}

type run struct {
	m    *testing.M
	root string
}

func (r run) Run() int {
	code := r.m.Run()
	if broker != nil {
		broker.remove()
	}
	if err := os.RemoveAll(r.root); err != nil {
		fmt.Fprintln(os.Stderr, "amqpretry:", err)
		code = 1
	}
	return code
}

// required reports whether the environment wants the tests that need a
// broker to fail rather than skip when there is none.
func required() bool { return os.Getenv("AMQPRETRY_REQUIRE") == "1" }

// needBroker returns the tests' broker, or skips t (fails it under
// AMQPRETRY_REQUIRE=1) if there is none.
func needBroker(t testing.TB) *rabbit {
	t.Helper()
	if broker == nil {
		if required() {
			t.Fatalf("no RabbitMQ, and AMQPRETRY_REQUIRE=1: %s", noBroker)
		}
		t.Skipf("no RabbitMQ: %s", noBroker)
	}
	return broker
}

// quiet drops amqp091-go's log lines.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
