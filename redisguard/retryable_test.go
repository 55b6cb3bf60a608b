package redisguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/redis/go-redis/v9"
)

// serverWith starts a server with the extra arguments for t alone,
// stopped when t ends.
func serverWith(t testing.TB, extra ...string) *server {
	t.Helper()
	s, err := startServer(0, extra...)
	if err != nil {
		noServer(t, err.Error())
	}
	t.Cleanup(func() {
		s.stop()
		if err := os.RemoveAll(s.dir); err != nil {
			t.Error(err)
		}
	})
	return s
}

// retryUntil sends cmd through the library's driver with Retryable, and
// calls heal after the first retryable error; it returns the errors
// retried.
func retryUntil(t *testing.T, cmd func(ctx context.Context) error, heal func()) []error {
	t.Helper()
	var (
		mu      sync.Mutex
		retried []error
		once    sync.Once
	)
	err := backoff.DoErr(context.Background(), cmd,
		backoff.WithRetryable(Retryable),
		backoff.WithBackOff(backoff.NewConstantBackOff(10*time.Millisecond)),
		backoff.WithMaxTries(1000),
		backoff.WithNotify(func(err error, _ time.Duration) {
			mu.Lock()
			retried = append(retried, err)
			mu.Unlock()
			once.Do(heal)
		}))
	if err != nil {
		t.Fatalf("after %d retries: %v", len(retried), err)
	}
	return retried
}

// wantFirstWord fails t unless errs holds an error of the server whose
// first word is word.
func wantFirstWord(t *testing.T, errs []error, word string) {
	t.Helper()
	for _, err := range errs {
		if strings.HasPrefix(err.Error(), word+" ") {
			return
		}
	}
	t.Fatalf("retried %v, want a %s reply", errs, word)
}

// A script that runs past busy-reply-threshold: every other command gets
// BUSY, retried until the script is killed.
func TestRetryableBusy(t *testing.T) {
	s := serverWith(t, "--busy-reply-threshold", "50")
	c, looping, killer := newClient(t, s.addr), newClient(t, s.addr), newClient(t, s.addr)
	done := make(chan error, 1)
	go func() { done <- looping.Eval(context.Background(), "while true do end", nil).Err() }()
	waitFor(t, func() bool {
		return errors.Is(c.Ping(context.Background()).Err(), c.Ping(context.Background()).Err()) && isBusy(c)
	})
	retried := retryUntil(t, func(ctx context.Context) error { return c.Set(ctx, "k", "v", 0).Err() },
		func() { _ = killer.ScriptKill(context.Background()).Err() })
	wantFirstWord(t, retried, "BUSY")
	if err := <-done; err == nil {
		t.Error("the killed script returned no error")
	}
}

// isBusy reports whether c's server answers BUSY.
func isBusy(c *redis.Client) bool {
	err := c.Get(context.Background(), "probe").Err()
	return err != nil && strings.HasPrefix(err.Error(), "BUSY ")
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the condition never held")
}

// A replica whose master is gone, as a demoted primary becomes: writes
// get READONLY, and with replica-serve-stale-data no, reads get
// MASTERDOWN; retried until the server is a master again.
func TestRetryableReadOnlyAndMasterDown(t *testing.T) {
	s := serverWith(t, "--replica-serve-stale-data", "no")
	c, a := newClient(t, s.addr), admin(t, s.addr)
	gone, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	demote := func() {
		if err := a.ReplicaOf(context.Background(), "127.0.0.1", fmt.Sprint(gone)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	promote := func() { _ = a.ReplicaOf(context.Background(), "NO", "ONE").Err() }
	demote()
	retried := retryUntil(t, func(ctx context.Context) error { return c.Set(ctx, "k", "v", 0).Err() }, promote)
	wantFirstWord(t, retried, "READONLY")
	demote()
	retried = retryUntil(t, func(ctx context.Context) error { return c.Get(ctx, "k").Err() }, promote)
	wantFirstWord(t, retried, "MASTERDOWN")
}

// A server loading its dataset (DEBUG RELOAD, slowed by key-load-delay)
// answers LOADING, retried until it is done.
func TestRetryableLoading(t *testing.T) {
	s := serverWith(t, "--enable-debug-command", "yes", "--loading-process-events-interval-bytes", "1024")
	c, a := newClient(t, s.addr), admin(t, s.addr)
	ctx := context.Background()
	if err := a.Do(ctx, "DEBUG", "POPULATE", 20000).Err(); err != nil {
		t.Fatal(err)
	}
	if err := a.ConfigSet(ctx, "key-load-delay", "20").Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Do(ctx, "DEBUG", "RELOAD").Err() }()
	waitFor(t, func() bool {
		err := c.Get(ctx, "key:1").Err()
		return err != nil && strings.HasPrefix(err.Error(), "LOADING ")
	})
	retried := retryUntil(t, func(ctx context.Context) error { return c.Get(ctx, "key:1").Err() }, func() {})
	wantFirstWord(t, retried, "LOADING")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A cluster node that serves no slot answers CLUSTERDOWN.
func TestRetryableClusterDown(t *testing.T) {
	s := serverWith(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	err := newClient(t, s.addr).Get(context.Background(), "k").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "CLUSTERDOWN ") || !Retryable(err) {
		t.Fatalf("GET on a node without slots: %v (Retryable %v), want a retryable CLUSTERDOWN", err, Retryable(err))
	}
}

// A connection refused is retryable; the server's refusals of the
// command itself are not, nor MOVED, which a cluster client follows.
func TestRetryableRefusals(t *testing.T) {
	ctx := context.Background()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	refused := newClient(t, fmt.Sprintf("127.0.0.1:%d", port)).Ping(ctx).Err()
	if refused == nil || !Retryable(refused) {
		t.Errorf("a connection refused: %v, Retryable %v, want true", refused, Retryable(refused))
	}

	s := serverWith(t)
	c := newClient(t, s.addr)
	if err := c.Set(ctx, "str", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.XAdd(ctx, &redis.XAddArgs{Stream: "st", Values: []any{"f", "v"}}).Err(); err != nil {
		t.Fatal(err)
	}
	_ = c.XGroupCreate(ctx, "st", "g", "0").Err()
	for name, err := range map[string]error{
		"WRONGTYPE":      c.LPush(ctx, "str", "x").Err(),
		"script error":   c.Eval(ctx, "return redis.call('nosuch')", nil).Err(),
		"script error()": c.Eval(ctx, "error('boom')", nil).Err(),
		"BUSYGROUP":      c.XGroupCreate(ctx, "st", "g", "0").Err(),
		"NOSCRIPT":       c.EvalSha(ctx, strings.Repeat("0", 40), nil).Err(),
	} {
		if err == nil || Retryable(err) {
			t.Errorf("%s: %v, Retryable %v, want a reply not retried", name, err, Retryable(err))
		}
	}

	if testCluster == nil {
		return // TestRetryableTable covers MOVED without a cluster
	}
	moved := 0
	for i := range 20 {
		err := newClient(t, testCluster.addrs[0]).Get(ctx, fmt.Sprint("key", i)).Err()
		if err != nil && strings.HasPrefix(err.Error(), "MOVED ") {
			moved++
			if Retryable(err) {
				t.Errorf("%v is retryable, want MOVED left to the cluster client", err)
			}
		}
	}
	if moved == 0 {
		t.Error("no MOVED from the cluster")
	}
}

// The replies that cannot be provoked on one server here (TRYAGAIN needs
// a resharding in progress), and the client's own errors.
func TestRetryableTable(t *testing.T) {
	reply := func(s string) error { return fmt.Errorf("wrapped: %w", redis.Error(protoError(s))) }
	cases := map[error]bool{
		nil: false,
		reply("TRYAGAIN Multiple keys request during rehashing of slot"): true,
		reply("LOADING Redis is loading the dataset in memory"):          true,
		reply("ERR max number of clients reached"):                       true,
		reply("MOVED 3999 127.0.0.1:6381"):                               false,
		reply("ASK 3999 127.0.0.1:6381"):                                 false,
		reply("BUSYKEY Target key name already exists."):                 false,
		reply("OOM command not allowed when used memory > 'maxmemory'."): false,
		reply("ERR unknown command"):                                     false,
		context.Canceled:                                                 false,
		context.DeadlineExceeded:                                         false,
		redis.ErrClosed:                                                  false,
		redis.ErrPoolTimeout:                                             false,
		redis.Nil:                                                        false,
		io.EOF:                                                           true,
		syscall.ECONNRESET:                                               true,
		errors.New("something else"):                                     false,
	}
	for err, want := range cases {
		if got := Retryable(err); got != want {
			t.Errorf("Retryable(%v) = %v, want %v", err, got, want)
		}
	}
}

// protoError is a reply error of the server, as go-redis makes them.
type protoError string

func (e protoError) Error() string { return string(e) }
func (protoError) RedisError()     {}
