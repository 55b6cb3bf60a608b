package amqpretry

import "syscall"

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
