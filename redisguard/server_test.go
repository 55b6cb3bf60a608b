package redisguard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// server is a redis-server process of the tests, on a loopback port.
type server struct {
	addr  string
	port  int
	dir   string
	extra []string // arguments beyond the tests' own
	cmd   *exec.Cmd
	done  chan struct{} // closed once the process's output is drained
}

// startServer starts redis-server on port, or on a free port if port is
// 0, with the extra arguments, and returns once it accepts connections. It
// keeps nothing on disk but what extra asks for (a cluster's node file):
// its directory, made in serverRoot, and whoever stops the server for the
// last time removes it.
func startServer(port int, extra ...string) (*server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed: %w", err)
	}
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp(serverRoot, "redisguard")
	if err != nil {
		return nil, err
	}
	s := &server{addr: "127.0.0.1:" + strconv.Itoa(port), port: port, dir: dir, extra: extra}
	if err := s.start(path); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// start runs the process and waits for it to say it is ready.
func (s *server) start(path string) error {
	s.cmd = exec.Command(path, append([]string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--loglevel", "notice"}, s.extra...)...)
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.cmd.Stderr = s.cmd.Stdout
	ready := make(chan struct{})
	s.done = make(chan struct{})
	var lines []string // read once done is closed
	reader := func() {
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
	}
	if err := startProcess(s.cmd); err != nil {
		return fmt.Errorf("redis-server did not start: %w", err)
	}
	go reader()
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
	s.wait()
	return fmt.Errorf("%w: %s", err, strings.Join(lines, "\n"))
}

// stop kills the server at once, as a crash would, and waits for it.
func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	s.wait()
	s.cmd = nil
}

// wait kills the process, waits for it to exit, and forgets it.
func (s *server) wait() {
	_ = s.cmd.Process.Kill()
	<-s.done
	_ = s.cmd.Wait()
	forget(s.cmd)
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
		if err := os.RemoveAll(s.dir); err != nil {
			t.Error(err)
		}
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

// serverRoot is the directory the servers of the tests keep theirs in:
// TestMain makes it, named after its process (see rootPrefix), and
// removes it at the end of the run.
var serverRoot string

// rootPrefix is the beginning of the name of the serverRoot of the test
// process pid.
func rootPrefix(pid int) string { return "redisguard-" + strconv.Itoa(pid) + "-" }

// sweepRoots removes from dir the serverRoots of test processes that have
// ended without removing theirs: killed, or timed out. That of a process
// still running, another run's, is left alone; so is anything not named
// as a serverRoot is.
func sweepRoots(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "redisguard-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// processAlive reports whether a process pid exists: signal 0 tests it
// without sending anything. A process that exists but is not ours to
// signal (EPERM) is alive.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// The servers' lives are tied to the test process's, so that a test
// process that is killed, or that times out, leaves no server behind. On
// Linux each server is started with a parent-death signal (SIGKILL, see
// setParentDeath); the kernel sends it when the thread that forked the
// server exits, not the process, and Go ends threads of its own accord.
// So every server is forked from one goroutine, spawnLoop, locked to its
// OS thread and never unlocked: that thread lives until the process ends.
// On other systems nothing ties them, and a killed test process leaves its
// servers running. A run that ends normally stops every server, and
// TestMain checks that none is left (see reap).
var (
	spawnOnce sync.Once
	spawns    chan func()

	// running is every server process started and not yet waited for.
	running   = map[*exec.Cmd]bool{}
	runningMu sync.Mutex
)

// startProcess starts cmd from the thread of spawnLoop, with the
// parent-death signal where there is one, and records it as running.
func startProcess(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawns = make(chan func())
		go spawnLoop(spawns)
	})
	setParentDeath(cmd)
	errc := make(chan error, 1)
	spawns <- func() { errc <- cmd.Start() }
	if err := <-errc; err != nil {
		return err
	}
	runningMu.Lock()
	running[cmd] = true
	runningMu.Unlock()
	return nil
}

// spawnLoop runs the spawns it is sent, on its own OS thread, for the life
// of the process: the goroutine never returns, so the thread, which it
// holds locked, never exits.
func spawnLoop(spawns <-chan func()) {
	runtime.LockOSThread()
	for f := range spawns {
		f()
	}
	select {} // never reached: nobody closes spawns
}

// forget records that cmd's process was waited for.
func forget(cmd *exec.Cmd) {
	runningMu.Lock()
	delete(running, cmd)
	runningMu.Unlock()
}

// reap kills and waits for every server process still running, and
// reports them: at the end of a run, none may be left.
func reap() error {
	runningMu.Lock()
	left := make([]*exec.Cmd, 0, len(running))
	for cmd := range running {
		left = append(left, cmd)
	}
	clear(running)
	runningMu.Unlock()
	if len(left) == 0 {
		return nil
	}
	var pids []string
	for _, cmd := range left {
		pids = append(pids, strconv.Itoa(cmd.Process.Pid))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	return fmt.Errorf("%d redis-server of the tests still running at the end of the run (pid %s); killed", len(left), strings.Join(pids, ", "))
}

// serverHelperEnv makes the test binary a process that starts a server
// in the directory the variable names, writes "server <pid> <address>",
// and waits until its standard input closes or it is killed.
const serverHelperEnv = "REDISGUARD_SERVER_HELPER"

// serverHelper is the test binary under serverHelperEnv.
func serverHelper(dir string) {
	serverRoot = dir
	s, err := startServer(0)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Printf("server %d %s\n", s.cmd.Process.Pid, s.addr)
	_, _ = io.Copy(io.Discard, os.Stdin)
	s.stop()
	os.Exit(0)
}

// A test process killed with SIGKILL, which runs no cleanup, takes its
// server with it: the server's end of a connection to it closes.
func TestServerDiesWithTestProcess(t *testing.T) {
	if !parentDeath {
		t.Skipf("on %s nothing ties a server's life to the test process's", runtime.GOOS)
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		noServer(t, err.Error())
	}
	dir, err := os.MkdirTemp(serverRoot, "helper")
	if err != nil {
		t.Fatal(err)
	}
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), serverHelperEnv+"="+dir)
	helper.Stderr = os.Stderr
	in, err := helper.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var addr string
	line, _ := bufio.NewReader(out).ReadString('\n')
	if _, err := fmt.Sscanf(line, "server %d %s", &pid, &addr); err != nil {
		_ = helper.Process.Kill()
		_ = helper.Wait()
		t.Fatalf("the helper said %q: %v", line, err)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	if _, err := io.WriteString(conn, "PING\r\n"); err != nil {
		t.Fatal(err)
	}
	if pong, err := r.ReadString('\n'); pong != "+PONG\r\n" || err != nil {
		t.Fatalf("PING: %q, %v", pong, err)
	}

	_ = helper.Process.Kill()
	_ = helper.Wait()
	// The read returns when the server's end closes, as the server dies;
	// the deadline only bounds a failing test.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the server (pid %d) outlived its test process, which was killed", pid)
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	} else if err == nil {
		t.Errorf("the server sent a byte after its test process was killed")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Error(err)
	}
}

// sweepRoots removes the serverRoot of a test process that has ended, and
// nothing else: not that of a process still running, nor a directory that
// is not named as a serverRoot is.
func TestSweepRoots(t *testing.T) {
	ended := exec.Command(os.Args[0], "-test.run=^$")
	ended.Env = append(os.Environ(), helperEnv+"=local") // runs no test, makes no server
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	names := map[string]bool{ // the name, and whether it stays
		rootPrefix(ended.Process.Pid) + "1": false,
		rootPrefix(os.Getpid()) + "2":       true,
		"redisguard12345":                   true,
		"redisguard-x-3":                    true,
		"other":                             true,
	}
	for name := range names {
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepRoots(dir)
	for name, stays := range names {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != stays {
			t.Errorf("%s: there after the sweep %v, want %v", name, got, stays)
		}
	}
}
