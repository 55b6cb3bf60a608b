//go:build !linux

package natsretry

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }

// sweep does nothing here: a process ID is not checked.
func sweep(string) {}
