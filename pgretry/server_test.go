package pgretry_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgServer is a PostgreSQL server of the tests: a data directory made by
// initdb in a temporary directory, and a postgres process on a free
// loopback port, started as a child of the test process that dies with it
// (the server's own processes end when it does).
type pgServer struct {
	bin  string // the directory of initdb and postgres
	root string // the temporary directory, removed by close
	data string
	port int
	cred *syscall.Credential // whom the server runs as when the tests run as root
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
}

// pgBin returns the directory of the newest PostgreSQL's server binaries.
func pgBin() (string, error) {
	if dir := os.Getenv("PGRETRY_BIN"); dir != "" {
		return dir, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(found) == 0 {
		if p, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", errors.New("no PostgreSQL server binaries (install postgresql, or set PGRETRY_BIN)")
	}
	sort.Slice(found, func(i, j int) bool { return version(found[i]) < version(found[j]) })
	return filepath.Dir(found[len(found)-1]), nil
}

// version returns the major version in a path /usr/lib/postgresql/N/bin/postgres.
func version(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// startPG makes a data directory and starts a server on it.
func startPG() (*pgServer, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "pgretry")
	if err != nil {
		return nil, err
	}
	s := &pgServer{bin: bin, root: root, data: filepath.Join(root, "data")}
	if err := s.init(); err != nil {
		s.close()
		return nil, err
	}
	if s.port, err = freePort(); err != nil {
		s.close()
		return nil, err
	}
	if err := s.start(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// init runs initdb, as the postgres user when the tests run as root
// (PostgreSQL refuses to run as root): that user then owns the temporary
// directory, and every directory above it must let it through.
func (s *pgServer) init() error {
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("the tests run as root and there is no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(s.root, uid, gid); err != nil {
			return err
		}
		for dir := filepath.Dir(s.root); ; dir = filepath.Dir(dir) {
			if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o001 == 0 {
				if err := os.Chmod(dir, fi.Mode().Perm()|0o001); err != nil {
					return err
				}
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	cmd := exec.Command(filepath.Join(s.bin, "initdb"), "-D", s.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	cmd.Dir = s.root
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	return nil
}

// start starts the server on its data directory and port, and waits until
// it takes connections. A write in a transaction that sets
// synchronous_commit to on waits at COMMIT for a standby that never comes
// ("ghost"): the tests cut such a COMMIT off.
func (s *pgServer) start() error {
	logf, err := os.OpenFile(filepath.Join(s.root, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), "-D", s.data, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.data,
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "shared_buffers=16MB",
		"-c", "max_connections=80", "-c", "deadlock_timeout=50ms",
		"-c", "synchronous_standby_names=ghost", "-c", "synchronous_commit=local")
	cmd.Dir = s.root
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.done)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		c, err := pgx.Connect(ctx, s.connString())
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.root, "log"))
			return fmt.Errorf("postgres exited: %s", log)
		case <-ctx.Done():
			return fmt.Errorf("postgres did not take connections: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop shuts the server down as a fast shutdown does (SIGINT: it
// terminates every backend) and waits for it.
func (s *pgServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// close stops the server and removes its directory.
func (s *pgServer) close() {
	s.stop()
	_ = os.RemoveAll(s.root)
}

// connString returns the pgx connection string of the server.
func (s *pgServer) connString() string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable connect_timeout=5", s.port)
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
