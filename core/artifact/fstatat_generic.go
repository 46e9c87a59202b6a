//go:build linux && (arm64 || riscv64)

package artifact

import "syscall"

const sysFstatat = syscall.SYS_FSTATAT
