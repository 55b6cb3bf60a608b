package mysqlretry_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// myServer is a MariaDB (or MySQL) server of the tests: a data directory
// made by mariadb-install-db in a temporary directory, and a mariadbd on a
// free loopback port, started as a child of the test process that dies
// with it.
type myServer struct {
	mysqld string
	root   string // the temporary directory, removed by close
	data   string
	port   int
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd has been waited for
}

// findBin returns the first of names on the PATH or in /usr/sbin.
func findBin(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		if p := filepath.Join("/usr/sbin", n); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s (install mariadb-server)", names[0])
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// startMy makes a data directory, starts a server on it, and makes the
// tests' users: app, who may use the database test only (so that
// read_only applies to it), and admin, who may do anything.
func startMy() (*myServer, error) {
	install, err := findBin("mariadb-install-db", "mysql_install_db")
	if err != nil {
		return nil, err
	}
	mysqld, err := findBin("mariadbd", "mysqld")
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "mysqlretry")
	if err != nil {
		return nil, err
	}
	s := &myServer{mysqld: mysqld, root: root, data: filepath.Join(root, "data")}
	args := []string{"--no-defaults", "--datadir=" + s.data, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if os.Getuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.Command(install, args...)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %v: %s", install, err, out)
	}
	if s.port, err = freePort(); err != nil {
		s.close()
		return nil, err
	}
	if err := s.start(); err != nil {
		s.close()
		return nil, err
	}
	db, err := sql.Open("mysql", "root@unix("+s.socket()+")/")
	if err != nil {
		s.close()
		return nil, err
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE DATABASE test",
		"CREATE USER app@'127.0.0.1'", "GRANT ALL ON test.* TO app@'127.0.0.1'",
		"CREATE USER admin@'127.0.0.1'", "GRANT ALL ON *.* TO admin@'127.0.0.1' WITH GRANT OPTION",
	} {
		if _, err := db.Exec(q); err != nil {
			s.close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	return s, nil
}

func (s *myServer) socket() string { return filepath.Join(s.root, "sock") }

// start starts the server on its data directory and port, and waits until
// it takes connections. It keeps a binary log, so that a COMMIT can be
// made to wait for a semi-synchronous replica that never comes.
func (s *myServer) start() error {
	logf, err := os.OpenFile(filepath.Join(s.root, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := []string{"--no-defaults", "--datadir=" + s.data, "--port=" + strconv.Itoa(s.port),
		"--bind-address=127.0.0.1", "--socket=" + s.socket(), "--pid-file=" + filepath.Join(s.root, "pid"),
		"--skip-name-resolve", "--log-bin=" + filepath.Join(s.root, "binlog"), "--server-id=1",
		"--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=2", "--sync-binlog=0",
		"--max-connections=100", "--skip-log-error"}
	if os.Getuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.Command(s.mysqld, args...)
	cmd.Dir = s.root
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.done)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		c, err := net.Dial("tcp", s.addr())
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.root, "log"))
			return fmt.Errorf("mariadbd exited: %s", log)
		case <-ctx.Done():
			return errors.New("mariadbd did not take connections")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop shuts the server down (SIGTERM: a normal shutdown, which ends
// every connection) and waits for it.
func (s *myServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// close stops the server and removes its directory.
func (s *myServer) close() {
	s.stop()
	_ = os.RemoveAll(s.root)
}

func (s *myServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// dsn returns the DSN of user on the database test, with timeouts so
// that a server that stops answering cannot hold a test.
func (s *myServer) dsn(user string) string {
	return user + "@tcp(" + s.addr() + ")/test?timeout=5s&readTimeout=30s&writeTimeout=30s"
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
