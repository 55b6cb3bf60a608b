//go:build !linux

package amqpretry

import "syscall"

func procAttr(uid, gid int) *syscall.SysProcAttr {
	if uid < 0 {
		return nil
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}

// sweep does nothing here: a process ID is not checked.
func sweep(string) {}
