package natsretry

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// dieWithParent makes a server die with the test process, should that be
// killed before it stops the server.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// sweep removes the directories that test processes of this package
// which are no longer running left in dir: a process that panicked runs
// no cleanup (its servers die with it, their directories do not).
func sweep(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "natsretry-%d-", &pid); err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
