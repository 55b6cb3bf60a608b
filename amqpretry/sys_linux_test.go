package amqpretry

import "syscall"

// dieWithParent makes a server die with the test process, should that be
// killed before it stops the server.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
