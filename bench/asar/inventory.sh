#!/usr/bin/env bash
# Compares `rea inventory` with @electron/asar reading and verifying the same
# ASAR (bench/asar/npm.cjs verify: listPackage, read every file, whole-file
# and block SHA-256 checks), as whole processes through the commands a user
# runs, interleaved, on archives you already have (bench/asar/run.sh builds
# one from node_modules and /usr/share).
#
#   bench/asar/inventory.sh [-base OLD_REA] ARCHIVE...
#
# RUNS=n sets the number of interleaved runs (default 5). With -base, an
# older rea binary runs in the same interleave (new, old, npm, new, ...).
# Prints, per archive, the medians of wall time, CPU time (user + system)
# and peak RSS of each, and the load average before and after; on a busy
# machine trust CPU time and peak RSS over wall time. Unit: MB = 10^6 bytes
# of the archive.
#
# Needs go, node, and node_modules/@electron/asar at the repository root
# (npm ci).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${RUNS:-5}
base=""
if [ "${1:-}" = "-base" ]; then
  base=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [-base OLD_REA] ARCHIVE..." >&2; exit 2; }
command -v node >/dev/null || { echo "node not found" >&2; exit 1; }
[ -d "$root/node_modules/@electron/asar" ] || { echo "run npm ci in $root first" >&2; exit 1; }
export NODE_PATH="$root/node_modules"

work=$(mktemp -d "${TMPDIR:-/tmp}/asarinv.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/rea" ./cmd/rea)

tools=(rea)
[ -n "$base" ] && tools+=(rea-base)
tools+=(npm)
cmd() {
  case $1 in
    rea) echo "$work/rea inventory $2" ;;
    rea-base) echo "$base inventory $2" ;;
    npm) echo "node $here/npm.cjs verify $2" ;;
  esac
}
# shellcheck source=../internal/pair.sh
. "$root/bench/internal/pair.sh" # med

echo "$(nproc) CPUs; medians of $runs interleaved runs of whole processes"
for archive in "$@"; do
  mb=$(stat -c %s "$archive")
  cat "$archive" > /dev/null # warm the page cache
  echo
  echo "$archive: $(awk -v b="$mb" 'BEGIN {printf "%.1f MB", b / 1e6}')"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for t in "${tools[@]}"; do : > "$work/t.$t"; done
  for _ in $(seq "$runs"); do
    for t in "${tools[@]}"; do
      # shellcheck disable=SC2046
      /usr/bin/time -f '%e %U %S %M' -o "$work/t" $(cmd "$t" "$archive") > /dev/null
      cat "$work/t" >> "$work/t.$t"
    done
  done
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  for t in "${tools[@]}"; do
    w=$(awk '{print $1}' "$work/t.$t" | med)
    c=$(awk '{print $2+$3}' "$work/t.$t" | med)
    r=$(awk '{print $4/1024}' "$work/t.$t" | med)
    echo "$t $w $c $r" >> "$work/m"
    awk -v t="$t" -v w="$w" -v c="$c" -v r="$r" -v mb="$mb" 'BEGIN {
      printf "%-9s wall %6.2f s  CPU %6.2f s  peak RSS %6.0f MB  %6.1f MB per CPU-second\n", t, w, c, r, mb / 1e6 / c }'
  done
  awk '$1 == "rea" {w = $2; c = $3; r = $4} $1 == "npm" {nw = $2; nc = $3; nr = $4}
    END {printf "npm / rea: wall %.2fx  CPU %.2fx  peak RSS %.2fx (above 1: rea is faster or smaller)\n", nw / w, nc / c, nr / r}' "$work/m"
  : > "$work/m"
done
