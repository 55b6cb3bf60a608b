package amqpretry

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// rabbit is a RabbitMQ of the tests, on loopback ports, with its data,
// logs and HOME in a directory of its own, and an Erlang port mapper
// (epmd) of its own on a port of its own, which it stops with it.
type rabbit struct {
	dir        string
	port, dist int
	epmdPort   int
	epmd       *exec.Cmd
	cmd        *exec.Cmd
	done       chan struct{}
	uid, gid   int
	script     string
}

// debianScript is the script that Debian's rabbitmq-server command runs
// as the rabbitmq user (through su, when run as root). The tests run it
// themselves, as that user, so that the broker is their child and dies
// with them.
const debianScript = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// startRabbit starts a RabbitMQ and returns once it accepts AMQP
// connections.
func startRabbit(root string) (*rabbit, error) {
	for _, cmd := range []string{"rabbitmq-server", "epmd"} {
		if _, err := exec.LookPath(cmd); err != nil {
			return nil, err
		}
	}
	r := &rabbit{uid: -1, gid: -1, script: "rabbitmq-server"}
	if _, err := os.Stat(debianScript); err == nil {
		r.script = debianScript
	}
	if os.Getuid() == 0 {
		// RabbitMQ runs as the rabbitmq user, which must own its
		// directories.
		u, err := user.Lookup("rabbitmq")
		if err != nil {
			return nil, err
		}
		r.uid, _ = strconv.Atoi(u.Uid)
		r.gid, _ = strconv.Atoi(u.Gid)
	}
	var err error
	if r.dir, err = os.MkdirTemp(root, "rabbit"); err != nil {
		return nil, err
	}
	for _, p := range []*int{&r.port, &r.dist, &r.epmdPort} {
		if *p, err = freePort(); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"mnesia", "log"} {
		if err := os.Mkdir(filepath.Join(r.dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(r.dir, "enabled_plugins"), []byte("[].\n"), 0o644); err != nil {
		return nil, err
	}
	if r.uid >= 0 {
		if err := filepath.Walk(r.dir, func(path string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, r.uid, r.gid)
		}); err != nil {
			return nil, err
		}
		if err := os.Chown(root, r.uid, r.gid); err != nil {
			return nil, err
		}
		// The rabbitmq user must reach root: each directory above it that
		// others cannot enter (a TMPDIR made by mktemp, say) gets o+x.
		for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
			if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o001 == 0 {
				if err := os.Chmod(dir, fi.Mode().Perm()|0o001); err != nil {
					return nil, err
				}
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	r.epmd = exec.Command("epmd", "-port", strconv.Itoa(r.epmdPort), "-address", "127.0.0.1")
	r.epmd.Dir = r.dir // so that what runs from the tests' directories is told apart
	r.epmd.SysProcAttr = procAttr(-1, -1)
	if err := r.epmd.Start(); err != nil {
		return nil, err
	}
	if err := r.start(); err != nil {
		r.remove()
		return nil, err
	}
	return r, nil
}

func (r *rabbit) url() string { return "amqp://guest:guest@" + r.addr() + "/" }

func (r *rabbit) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

func (r *rabbit) env() []string {
	in := func(name string) string { return filepath.Join(r.dir, name) }
	return append(os.Environ(),
		"HOME="+r.dir,
		"RABBITMQ_NODENAME=rabbit@localhost",
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(r.port),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(r.dist),
		"ERL_EPMD_PORT="+strconv.Itoa(r.epmdPort),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_MNESIA_BASE="+in("mnesia"),
		"RABBITMQ_LOG_BASE="+in("log"),
		"RABBITMQ_FEATURE_FLAGS_FILE="+in("feature_flags"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+in("enabled_plugins"),
		"RABBITMQ_PID_FILE="+in("pid"),
		// The script then execs the Erlang VM, which so stays the
		// tests' child, and stops it on SIGTERM.
		"RUNNING_UNDER_SYSTEMD=true",
	)
}

// start starts the broker, with the data it had, and returns once it
// accepts AMQP connections.
func (r *rabbit) start() error {
	var out bytes.Buffer
	r.cmd = exec.Command(r.script)
	r.cmd.Env = r.env()
	r.cmd.Dir = r.dir
	r.cmd.Stdout, r.cmd.Stderr = &out, &out
	r.cmd.SysProcAttr = procAttr(r.uid, r.gid)
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(r.cmd, r.done)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := amqp.DialConfig(r.url(), amqp.Config{Dial: amqp.DefaultDial(time.Second)}); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-r.done:
			return fmt.Errorf("rabbitmq-server exited at start: %s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	r.halt()
	return fmt.Errorf("rabbitmq-server did not accept connections on %s within 60s: %s", r.addr(), out.String())
}

// halt stops the broker as an operator does (SIGTERM to its Erlang VM: it
// closes its connections with 320, connection forced), and returns once
// it has exited.
func (r *rabbit) halt() {
	if r.cmd == nil || r.cmd.Process == nil { // never started
		r.cmd = nil
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
	r.cmd = nil
}

// restart stops the broker and starts it again.
func (r *rabbit) restart(t testing.TB) {
	t.Helper()
	r.halt()
	if err := r.start(); err != nil {
		t.Fatal(err)
	}
}

// remove stops the broker and its epmd, and removes its directory.
func (r *rabbit) remove() {
	r.halt()
	if r.epmd != nil {
		_ = r.epmd.Process.Kill()
		_ = r.epmd.Wait()
		r.epmd = nil
	}
	os.RemoveAll(r.dir)
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
