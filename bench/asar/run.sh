#!/usr/bin/env bash
# Benchmarks rea against npm's @electron/asar on an ASAR of about size_mb:
# end to end (rea inventory and rea extract-artifact, whole processes through
# the CLI a user runs), each interleaved with @electron/asar doing the same
# work, reporting medians of wall time, CPU time and peak RSS; then the ASAR
# adapter alone in process (asarbench). The load average is printed before
# and after: on a busy machine trust CPU time and peak RSS over wall time.
#
#   bench/asar/run.sh [size_mb]   (default 268, the size of a large Electron
#                                  app's app.asar; RUNS=n sets the number of
#                                  runs, default 5; MIN_FILE_BYTES=n leaves
#                                  out smaller files: 2049 gives about 11k
#                                  files, the shape of a mid-size app, where
#                                  0 gives about 37k)
#
# Needs go, node, and node_modules/@electron/asar at the repository root
# (npm ci). Builds the tree in a temporary directory and removes it on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
size_mb=${1:-268}
runs=${RUNS:-5}
min_file=${MIN_FILE_BYTES:-0}

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
done | awk -v budget="$budget" -v min="$min_file" '$1 < min || $1 > 8388608 || s + $1 > budget { next } { s += $1; sub(/^[0-9]+ /, ""); print }' |
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

# rea end to end: the CLI inventories the archive (list, read and SHA-256
# every file, packed and unpacked, check each declared hash; classify; build
# and seal the content-addressed graph as Evidence) and extracts every regular
# file into a directory it creates under TMPDIR (the same file system as
# npm's output), which is removed after each run.
mkdir -p "$work/tmp"

# pair (bench/internal/pair.sh): $runs interleaved runs of two whole
# processes, medians of wall, CPU and peak RSS, and the ratios b/a.
# shellcheck source=../internal/pair.sh
. "$root/bench/internal/pair.sh"
PAIR_BEFORE=clean_out
clean_out() { rm -rf "$work/out" "$work/tmp"/rea-extract-*; }

echo "$(nproc) CPUs; unit: MB = 10^6 bytes of the archive's files ($bytes bytes); medians of $runs interleaved runs of whole processes"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "rea inventory (CLI, default limits: list, read and SHA-256 every file and the archive, check each declared hash,"
echo "classify, build and seal the content-addressed graph as Evidence) against @electron/asar listPackage + read +"
echo "whole-file and block SHA-256 checks of every file (npm.cjs verify):"
pair rea-inventory npm-verify "$work/rea" inventory "$archive" -- node "$here/npm.cjs" verify "$archive"
echo "rea extract-artifact (CLI) against @electron/asar extractAll:"
pair rea-extract npm-extract env TMPDIR="$work/tmp" "$work/rea" extract-artifact "$archive" -- node "$here/npm.cjs" extract "$archive" "$work/out"
echo "load average after the whole-process runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# In-process comparisons of the ASAR adapter alone (best of $runs).
results=$(
  best rea-verify "$work/asarbench" -mode verify -archive "$archive"
  best npm-verify node "$here/npm.cjs" verify "$archive"
  best rea-rawsha "$work/asarbench" -mode rawsha -archive "$archive"
  best sha256sum sha_sum
  best rea-extract "$work/asarbench" -mode extract -archive "$archive" -out "$work/out"
  best npm-extract node "$here/npm.cjs" extract "$archive" "$work/out"
)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "adapter alone, in process, best of $runs:"
echo "$results" | awk '
  { mbs[$1] = $2 / 1e6 / $3; printf "%-12s %8.1f MB in %7.3f s  %8.1f MB/s\n", $1, $2 / 1e6, $3, mbs[$1] }
  END {
    printf "\nrea verify / npm verify     %5.2fx\n", mbs["rea-verify"] / mbs["npm-verify"]
    printf "rea verify / raw sha256 (Go) %5.2fx\n", mbs["rea-verify"] / mbs["rea-rawsha"]
    printf "rea verify / sha256sum      %5.2fx\n", mbs["rea-verify"] / mbs["sha256sum"]
    printf "rea extract / npm extractAll %5.2fx\n", mbs["rea-extract"] / mbs["npm-extract"]
  }'
