//go:build !linux

package natsretry

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }
