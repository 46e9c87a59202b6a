#!/bin/sh
# Native benchmark: rea analyze (the overview), the complete procedure list
# (rea call list_procedures: whole-file discovery) and the whole-file
# disassembly with text (rea disassemble) against objdump -d, interleaved, on ls, libc, the Go toolchain's
# go, gcc's cc1, node and Debian's chromium (installed when missing and apt
# is usable; set SKIP_CHROMIUM=1 to leave it out). Prints wall and CPU time,
# peak RSS, time per MB and allocation per byte, and the load average.
#
# Usage: bench/native/run.sh [runs] [extra flags for go run ./bench/native]
set -eu
cd "$(dirname "$0")/../.."
runs=${1:-3}
[ $# -gt 0 ] && shift
flags=""
if [ "${SKIP_CHROMIUM:-}" = 1 ]; then
	flags="-skip-chromium"
elif [ ! -x /usr/lib/chromium/chromium ]; then
	if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		apt-get install -y chromium >/dev/null || echo "chromium could not be installed; it is skipped" >&2
	else
		echo "chromium is not installed (apt-get install -y chromium); it is skipped" >&2
	fi
fi
command -v objdump >/dev/null || { echo "objdump is missing (apt-get install -y binutils)" >&2; exit 1; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
exec go run ./bench/native -runs "$runs" -tools analyze,procedures,objdump,disasm,inproc $flags "$@"
