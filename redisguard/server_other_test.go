//go:build !linux

package redisguard

import "os/exec"

// parentDeath says whether a server dies with the test process: not
// here, for want of a parent-death signal.
const parentDeath = false

// setParentDeath does nothing: only Linux has a parent-death signal. A
// killed test process leaves its servers running.
func setParentDeath(*exec.Cmd) {}
