#!/usr/bin/env bash
# Benchmarks rea's ASAR reader against npm's @electron/asar on a ~100 MB tree.
#
#   bench/asar/run.sh [size_mb]   (default 100)
#
# Needs go, node, and node_modules/@electron/asar at the repository root
# (npm ci). Builds the tree in a temporary directory and removes it on exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
size_mb=${1:-100}
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

results=$(
  best rea-verify "$work/asarbench" -mode verify -archive "$archive"
  best npm-verify node "$here/npm.cjs" verify "$archive"
  best rea-rawsha "$work/asarbench" -mode rawsha -archive "$archive"
  best sha256sum sha_sum
  best rea-extract "$work/asarbench" -mode extract -archive "$archive" -out "$work/out"
  best npm-extract node "$here/npm.cjs" extract "$archive" "$work/out"
)

echo
echo "$(nproc) CPUs, best of $runs runs, MB = 10^6 bytes"
echo "$results" | awk '
  { mbs[$1] = $2 / 1e6 / $3; printf "%-12s %8.1f MB in %7.3f s  %8.1f MB/s\n", $1, $2 / 1e6, $3, mbs[$1] }
  END {
    printf "\nrea verify / npm verify     %5.2fx\n", mbs["rea-verify"] / mbs["npm-verify"]
    printf "rea verify / raw sha256 (Go) %5.2fx\n", mbs["rea-verify"] / mbs["rea-rawsha"]
    printf "rea verify / sha256sum      %5.2fx\n", mbs["rea-verify"] / mbs["sha256sum"]
    printf "rea extract / npm extractAll %5.2fx\n", mbs["rea-extract"] / mbs["npm-extract"]
  }'
