package redisguard

import (
	"os/exec"
	"syscall"
)

// parentDeath says whether a server dies with the test process.
const parentDeath = true

// setParentDeath has the kernel kill cmd's process when the thread that
// forks it exits (PR_SET_PDEATHSIG), which startProcess makes the end of
// the test process.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
