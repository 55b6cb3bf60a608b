package redisguard

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// The tests run against a real Redis server: the one at REDIS_ADDR if it
// is set, or else a redis-server that TestMain starts on a free loopback
// port and stops afterwards. Without one, the tests that need a server
// skip, and so do the examples, unless REDISGUARD_REQUIRE=1, which makes
// them fail (CI sets it). The fault tests start servers of their own,
// which they stop and restart, and need the redis-server command. TestMain
// also starts a Redis Cluster for the cluster tests (see startCluster).
var (
	testAddr   string // the server of the tests, "" if there is none
	testReason string // why there is none
)

// quiet is a go-redis logger that drops its lines: the fault tests make
// it log every connection they break.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// TestMain starts the tests' server, runs the tests, stops it, and fails
// the run if a goroutine outlives the tests, or a server of the tests is
// still running. Every server keeps its directory in one that TestMain
// makes and removes (see serverRoot; it removes first those that test
// processes killed before could not), and dies with the test process (see
// startProcess).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(m.Run()) // a fleet helper process: it makes no server
	}
	if dir := os.Getenv(serverHelperEnv); dir != "" {
		serverHelper(dir) // a process that starts a server, then waits to be killed
		return
	}
	redis.SetLogger(quiet{})
	flag.Parse()
	sweepRoots(os.TempDir())
	root, err := os.MkdirTemp("", rootPrefix(os.Getpid()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "redisguard:", err)
		os.Exit(1)
	}
	serverRoot = root
	var srv *server
	if addr := os.Getenv("REDIS_ADDR"); addr != "" {
		testAddr = addr
		forgetExamples(addr)
	} else if s, err := startServer(0); err != nil {
		testReason = err.Error()
	} else {
		srv, testAddr = s, s.addr
	}
	if c, err := startCluster(); err != nil {
		clusterReason = err.Error()
		fmt.Fprintf(os.Stderr, "redisguard: no Redis Cluster (%s): the cluster tests skip\n", clusterReason)
	} else {
		testCluster = c
	}
	if testAddr == "" && !required() {
		fmt.Fprintf(os.Stderr, "redisguard: no Redis server (%s): the tests that need one skip\n", testReason)
		_ = flag.Set("test.skip", "^Example")
	}
	ExampleAddr = testAddr
	goleak.VerifyTestMain(run{m, srv}, spawner)
}

// run runs the tests, then stops the server, checks that no other is
// left, and removes their directories, before goleak looks.
type run struct {
	m   *testing.M
	srv *server
}

func (r run) Run() int {
	code := r.m.Run()
	if r.srv != nil {
		r.srv.stop()
	}
	if testCluster != nil {
		if err := testCluster.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "redisguard:", err)
			code = 1
		}
	}
	if err := reap(); err != nil {
		fmt.Fprintln(os.Stderr, "redisguard:", err)
		code = 1
	}
	if err := os.RemoveAll(serverRoot); err != nil {
		fmt.Fprintln(os.Stderr, "redisguard:", err)
		code = 1
	}
	return code
}

// forgetExamples deletes the keys a previous run of the examples left on
// a server of REDIS_ADDR, which outlives the run; the examples' names all
// begin with "example-".
func forgetExamples(addr string) {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	ctx := context.Background()
	keys, err := c.Keys(ctx, DefaultKeyPrefix+":{example-*").Result()
	if err == nil && len(keys) > 0 {
		c.Del(ctx, keys...)
	}
}

// required reports whether the environment wants the tests that need a
// server to fail rather than skip when there is none.
func required() bool { return os.Getenv("REDISGUARD_REQUIRE") == "1" }

// needRedis returns the address of the tests' server, or skips t (fails
// it, under REDISGUARD_REQUIRE=1) if there is none.
func needRedis(t testing.TB) string {
	t.Helper()
	if testAddr == "" {
		noServer(t, testReason)
	}
	return testAddr
}

// noServer skips t, or fails it under REDISGUARD_REQUIRE=1, for reason.
func noServer(t testing.TB, reason string) {
	t.Helper()
	if required() {
		t.Fatalf("no Redis server, and REDISGUARD_REQUIRE=1: %s", reason)
	}
	t.Skipf("no Redis server (install redis-server or set REDIS_ADDR): %s", reason)
}
