#!/usr/bin/env bash
# Benchmarks rea's ASAR reader against npm's @electron/asar on a ~100 MB tree:
# the adapter alone (asarbench) and rea end to end (rea inventory and rea
# extract-artifact, whole processes), each against @electron/asar doing the
# same work in the same run.
#
#   bench/asar/run.sh [size_mb]   (default 268: about 11k files, the size of a
#                                  large Electron app's app.asar)
#
# Needs go, node, and node_modules/@electron/asar at the repository root
# (npm ci). Builds the tree in a temporary directory and removes it on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
size_mb=${1:-268}
runs=3

command -v node >/dev/null || { echo "node not found" >&2; exit 1; }
[ -d "$root/node_modules/@electron/asar" ] || { echo "run npm ci in $root first" >&2; exit 1; }
export NODE_PATH="$root/node_modules"

work=$(mktemp -d "${TMPDIR:-/tmp}/asarbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 1. A ~size_mb tree: readable regular files from node_modules and /usr/share,
#    taken in a fixed order until the budget is spent, plus two large random
#    files so multi-block integrity is exercised.
src="$work/src"
mkdir -p "$src"
budget=$(( (size_mb - 17) * 1024 * 1024 ))
for dir in "$root/node_modules" /usr/share/vim /usr/share/perl /usr/share/i18n /usr/share/man /usr/share/doc /usr/share/locale; do
  [ -d "$dir" ] && find "$dir" -type f -readable -printf '%s %p\n' | LC_ALL=C sort -k2
done | awk -v budget="$budget" '$1 > 8388608 || s + $1 > budget { next } { s += $1; sub(/^[0-9]+ /, ""); print }' |
  xargs -d '\n' cp --parents -t "$src"
head -c $((9 * 1024 * 1024 + 123)) /dev/urandom > "$src/large-9m.bin"
head -c $((8 * 1024 * 1024)) /dev/urandom > "$src/large-8m-exact.bin"
# rea rejects sibling names that differ only in case (perl has Pod and pod)
# unless asked; keep the first of each so both tools see the same tree.
find "$src" -mindepth 1 | LC_ALL=C sort | awk '{ l = tolower($0); if (l in seen) print; else seen[l] = 1 }' |
  while IFS= read -r p; do rm -rf -- "$p"; done
files=$(find "$src" -type f | wc -l)
bytes=$(find "$src" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "tree: $files files, $((bytes / 1024 / 1024)) MiB in $src"

# 2. Pack with @electron/asar (integrity is always on in 3.x).
archive="$work/app.asar"
t0=$(date +%s.%N)
node "$root/adapters/asar/testdata/asar.cjs" pack "$src" "$archive"
t1=$(date +%s.%N)
echo "packed with @electron/asar in $(echo "$t1 - $t0" | bc) s: $(du -m "$archive" | cut -f1) MiB"

go build -o "$work/asarbench" "$here"
go build -o "$work/rea" "$root/cmd/rea"
cat "$archive" > /dev/null # warm the page cache

# best of $runs: prints "<label> <bytes> <seconds>"
best() {
  local label=$1; shift
  local bestline=""
  for _ in $(seq $runs); do
    rm -rf "$work/out"
    line=$("$@")
    sec=${line##* }
    if [ -z "$bestline" ] || awk -v a="$sec" -v b="${bestline##* }" 'BEGIN {exit !(a < b)}'; then
      bestline=$line
    fi
  done
  echo "$label ${bestline#* }"
}

sha_sum() {
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$work/ref" && find . -type f -print0 | xargs -0 -P "$(nproc)" -n 64 sha256sum > /dev/null)
  t1=$(date +%s.%N)
  echo "sha256sum $bytes $(echo "$t1 - $t0" | bc)"
}

node "$here/npm.cjs" extract "$archive" "$work/ref" > /dev/null

# wall <label> <cmd...>: the whole process, start-up included, prints
# "<label> <bytes> <seconds>" for the archive's file bytes.
wall() {
  local label=$1 t0 t1; shift
  t0=$(date +%s.%N)
  "$@" > "$work/wall.out"
  t1=$(date +%s.%N)
  echo "$label $bytes $(echo "$t1 - $t0" | bc)"
}

# cpu <label> <cmd...>: like wall, but user+system CPU seconds of the
# process tree, which a busy host disturbs less than wall time.
cpu() {
  local label=$1 t TIMEFORMAT='%U %S'; shift
  t=$( { time "$@" > "$work/wall.out"; } 2>&1 )
  echo "$label $bytes $(echo "$t" | tail -1 | awk '{print $1 + $2}')"
}

# rea end to end: the CLI inventories the archive (list, read and SHA-256
# every file, packed and unpacked, check each declared hash; classify; build
# and seal the content-addressed graph as Evidence) and extracts every regular
# file into a directory it creates under TMPDIR (the same file system as
# npm's output), which is removed after each run.
mkdir -p "$work/tmp"
rea_extract() {
  TMPDIR="$work/tmp" "$work/rea" extract-artifact "$archive"
  rm -rf "$work/tmp"/rea-extract-*
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$(
  best rea-inventory wall rea-inventory "$work/rea" inventory "$archive"
  best rea-extract-e2e wall rea-extract-e2e rea_extract
  best npm-verify-e2e wall npm-verify-e2e node "$here/npm.cjs" verify "$archive"
  best npm-extract-e2e wall npm-extract-e2e node "$here/npm.cjs" extract "$archive" "$work/out"
  best rea-inventory-cpu cpu rea-inventory-cpu "$work/rea" inventory "$archive"
  best rea-extract-cpu cpu rea-extract-cpu rea_extract
  best npm-verify-cpu cpu npm-verify-cpu node "$here/npm.cjs" verify "$archive"
  best npm-extract-cpu cpu npm-extract-cpu node "$here/npm.cjs" extract "$archive" "$work/out"
  best rea-verify "$work/asarbench" -mode verify -archive "$archive"
  best npm-verify node "$here/npm.cjs" verify "$archive"
  best rea-rawsha "$work/asarbench" -mode rawsha -archive "$archive"
  best sha256sum sha_sum
  best rea-extract "$work/asarbench" -mode extract -archive "$archive" -out "$work/out"
  best npm-extract node "$here/npm.cjs" extract "$archive" "$work/out"
)

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "$(nproc) CPUs, best of $runs runs; unit: MB = 10^6 bytes of the archive's files; rea rows are the CLI a user runs (rea inventory with its default limits)"
echo "$results" | awk '
  { mbs[$1] = $2 / 1e6 / $3; printf "%-12s %8.1f MB in %7.3f s  %8.1f MB/s\n", $1, $2 / 1e6, $3, mbs[$1] }
  END {
    printf "\nrea verify / npm verify     %5.2fx\n", mbs["rea-verify"] / mbs["npm-verify"]
    printf "rea verify / raw sha256 (Go) %5.2fx\n", mbs["rea-verify"] / mbs["rea-rawsha"]
    printf "rea verify / sha256sum      %5.2fx\n", mbs["rea-verify"] / mbs["sha256sum"]
    printf "rea extract / npm extractAll %5.2fx\n", mbs["rea-extract"] / mbs["npm-extract"]
    printf "\nend to end (whole processes, higher is faster for rea):\n"
    printf "rea inventory / npm verify        %5.2fx\n", mbs["rea-inventory"] / mbs["npm-verify-e2e"]
    printf "rea inventory / npm verify (in-process) %5.2fx\n", mbs["rea-inventory"] / mbs["npm-verify"]
    printf "rea extract-artifact / npm extractAll   %5.2fx\n", mbs["rea-extract-e2e"] / mbs["npm-extract-e2e"]
    printf "rea extract-artifact / npm extractAll (in-process) %5.2fx\n", mbs["rea-extract-e2e"] / mbs["npm-extract"]
    printf "\nper CPU second (the *-cpu rows are MB per CPU second):\n"
    printf "rea inventory / npm verify        %5.2fx\n", mbs["rea-inventory-cpu"] / mbs["npm-verify-cpu"]
    printf "rea extract-artifact / npm extractAll %5.2fx\n", mbs["rea-extract-cpu"] / mbs["npm-extract-cpu"]
  }'
