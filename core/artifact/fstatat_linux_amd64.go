package artifact

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
