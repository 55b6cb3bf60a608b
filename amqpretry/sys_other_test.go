//go:build !linux

package amqpretry

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }
