//go:build !unix

package demo

import "syscall"

// sysProcAttr has no process-group settings outside Unix.
func sysProcAttr() *syscall.SysProcAttr { return nil }
