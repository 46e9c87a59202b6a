//go:build !unix

package supervisor

import (
	"fmt"
	"runtime"
	"syscall"

	"rea/ports"
)

func sysProcAttr(Spec) (*syscall.SysProcAttr, error) {
	return nil, fmt.Errorf("supervisor: owned process groups are not implemented on %s: %w", runtime.GOOS, ports.ErrUnavailable)
}

func killGroup(int, syscall.Signal) error {
	return fmt.Errorf("supervisor: process groups are not implemented on %s", runtime.GOOS)
}

func groupGone(int) bool { return false }
