package amqpretry

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// procAttr makes a process of the tests die with the test process, should
// that be killed before it stops the process, and run as uid and gid if
// they are not negative. (The signal is kept across exec, so a server
// that a script execs dies too.)
func procAttr(uid, gid int) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if uid >= 0 {
		a.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return a
}

// sweep removes the directories that test processes of this package
// which are no longer running left in dir: a process that panicked runs
// no cleanup (its servers die with it, their directories do not).
func sweep(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "amqpretry-%d-", &pid); err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
