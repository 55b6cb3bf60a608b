package redisguard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// server is a redis-server process of the tests, on a loopback port.
type server struct {
	addr string
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed once the process's output is drained
}

// startServer starts redis-server on port, or on a free port if port is
// 0, and returns once it accepts connections. It keeps nothing on disk.
func startServer(port int) (*server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed: %w", err)
	}
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "redisguard")
	if err != nil {
		return nil, err
	}
	s := &server{addr: "127.0.0.1:" + strconv.Itoa(port), port: port, dir: dir}
	if err := s.start(path); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// start runs the process and waits for it to say it is ready.
func (s *server) start(path string) error {
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--loglevel", "notice")
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("redis-server did not start: %w", err)
	}
	ready := make(chan struct{})
	s.done = make(chan struct{})
	var lines []string // read once done is closed
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			if signalled {
				continue // drained, so that the server never blocks on its output
			}
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				signalled = true
			}
		}
	}()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	select {
	case <-ready:
		return nil
	case <-s.done:
		err = errors.New("redis-server exited")
	case <-timeout.C:
		err = errors.New("redis-server was not ready in 20s")
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	_ = s.cmd.Wait()
	return fmt.Errorf("%w: %s", err, strings.Join(lines, "\n"))
}

// stop kills the server at once, as a crash would, and waits for it.
func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	_ = s.cmd.Wait()
	s.cmd = nil
}

// restart starts the server again on the same port, empty.
func (s *server) restart(t testing.TB) {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.start(path); err != nil {
		t.Fatalf("restarting redis-server: %v", err)
	}
}

// ownServer starts a server for t alone, stopped when t ends, or skips t
// if redis-server cannot be started (fails it under REDISGUARD_REQUIRE=1).
func ownServer(t testing.TB) *server {
	t.Helper()
	s, err := startServer(0)
	if err != nil {
		noServer(t, err.Error())
	}
	t.Cleanup(func() {
		s.stop()
		os.RemoveAll(s.dir)
	})
	return s
}

// freePort returns a loopback port that nothing listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// newClient returns a client of addr, closed when t ends: one client per
// instance of a fleet, as separate processes would have. It makes no
// retries of its own, so that the tests count round trips exactly.
func newClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:                  addr,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// admin returns a client for the tests' own commands to the server.
func admin(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("PING %s: %v", addr, err)
	}
	return c
}
