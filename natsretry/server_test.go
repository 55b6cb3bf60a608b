package natsretry

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// natsServer is a nats-server of the tests, with JetStream, on a loopback
// port, its data in a directory of its own under serverRoot.
type natsServer struct {
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startNATS starts a nats-server on a free port.
func startNATS() (*natsServer, error) {
	path, err := exec.LookPath("nats-server")
	if err != nil {
		return nil, err
	}
	_ = path
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(serverRoot, "nats")
	if err != nil {
		return nil, err
	}
	s := &natsServer{port: port, dir: dir}
	if err := s.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// needNATS starts a server for t, which stops it when it ends; it skips t
// (fails it under NATSRETRY_REQUIRE=1) if there is no nats-server.
func needNATS(t testing.TB) *natsServer {
	t.Helper()
	s, err := startNATS()
	if err != nil {
		if required() {
			t.Fatalf("no nats-server, and NATSRETRY_REQUIRE=1: %v", err)
		}
		t.Skipf("no nats-server: %v", err)
	}
	t.Cleanup(s.stop)
	return s
}

func (s *natsServer) url() string { return "nats://" + s.addr() }

func (s *natsServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// start starts the server on its port, with the data it had, and returns
// once it accepts connections.
func (s *natsServer) start() error {
	s.cmd = exec.Command("nats-server", "-a", "127.0.0.1", "-p", strconv.Itoa(s.port),
		"-js", "-sd", filepath.Join(s.dir, "js"), "-l", filepath.Join(s.dir, "log"))
	s.cmd.Dir = s.dir
	s.cmd.SysProcAttr = dieWithParent()
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(s.cmd, s.done)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", s.addr(), 100*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			return fmt.Errorf("nats-server exited at start: %s", log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.kill()
	return fmt.Errorf("nats-server did not accept connections on %s within 10s", s.addr())
}

// halt stops the server, as an operator does, and returns once it has
// exited.
func (s *natsServer) halt() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.kill()
	}
	s.cmd = nil
}

func (s *natsServer) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// stop stops the server and removes its directory.
func (s *natsServer) stop() {
	s.halt()
	os.RemoveAll(s.dir)
}

// freePort returns a loopback port that nothing listens on.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
