package demo

import "syscall"

// sysProcAttr puts a child in its own process group and has Linux send it
// SIGTERM if the demo dies without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
