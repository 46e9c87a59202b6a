#!/usr/bin/env bash
# Peak resident set of rea against input size on hostile inputs: sparse
# ELF files whose .dynsym is 64/256/512 MiB and a 4 GiB ELF whose .symtab
# fills it, a Mach-O and a PE declaring 16M symbols, a ZIP of four deflated
# 255 MiB ASARs and an app with a 100k-source map. Each runs as a child of
# bench/hostile/rss, which samples /proc/PID/status (VmHWM) and kills a child
# passing -bound MiB (default 4096), so an unbounded case cannot exhaust the
# machine. Prints the load average before and after.
#
#   bench/hostile/run.sh [-rea /path/to/rea] [-bound MiB] [-cases elf,macho]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
exec go run ./bench/hostile/rss "$@"
