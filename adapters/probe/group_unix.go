//go:build unix

package probe

import (
	"os/exec"
	"syscall"
)

// setGroup starts the command in a process group of its own and makes
// cancellation kill that group (the command and anything it forked).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
