package main

import (
	"os/exec"
	"syscall"
)

// dieWithTests has the kernel kill cmd when the test binary dies (go
// test's timeout panics it), so a hung rea is not left running.
func dieWithTests(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
