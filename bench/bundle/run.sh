#!/usr/bin/env bash
# Benchmarks Evidence bundle export and import on a 100,000-record bundle
# against raw SHA-256 over the same bytes, in the same run, and reports peak
# resident memory per phase (each phase is its own process).
#
#   bench/bundle/run.sh [records]   (default 100000)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
records=${1:-100000}
runs=3
work=$(mktemp -d "${TMPDIR:-/tmp}/bundlebench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/bundlebench" "$here"
bundle="$work/bundle.json"

# best of $runs by seconds; prints the whole line of the best run
best() {
  local bestline="" line sec
  for _ in $(seq $runs); do
    line=$("$@")
    sec=$(sed -E 's/.*seconds=([0-9.]+).*/\1/' <<<"$line")
    if [ -z "$bestline" ] || awk -v a="$sec" -v b="$(sed -E 's/.*seconds=([0-9.]+).*/\1/' <<<"$bestline")" 'BEGIN {exit !(a < b)}'; then
      bestline=$line
    fi
  done
  echo "$bestline"
}

results=$(
  best "$work/bundlebench" -mode export -records "$records" -out "$bundle"
  cat "$bundle" > /dev/null # warm the page cache for the readers
  best "$work/bundlebench" -mode sha -in "$bundle"
  best "$work/bundlebench" -mode validate -in "$bundle"
  best "$work/bundlebench" -mode import -in "$bundle"
  "$work/bundlebench" -mode lazy -records "$records" -out "$work/lazy.json"
)
cmp -s "$bundle" "$work/lazy.json" || { echo "lazy and in-memory exports differ" >&2; exit 1; }

echo "$(nproc) CPUs, best of $runs runs (lazy: one run), MB = 10^6 bytes"
echo "$results" | awk '
  {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    mode = $1; bytes[mode] = v["bytes"]; mbs[mode] = v["bytes"] / 1e6 / v["seconds"]
    printf "%-9s %8.1f MB %7d records in %7.3f s  %8.1f MB/s  RSS before %7.1f MiB  peak %7.1f MiB  allocated %8.1f MB\n",
      mode, v["bytes"] / 1e6, v["records"], v["seconds"], mbs[mode], v["rss_before_kib"] / 1024, v["peak_rss_kib"] / 1024, v["heap_alloc_bytes"] / 1e6
  }
  END {
    printf "\nexport / raw sha256   %5.2fx\n", mbs["export"] / mbs["sha"]
    printf "validate / raw sha256 %5.2fx\n", mbs["validate"] / mbs["sha"]
    printf "import / raw sha256   %5.2fx\n", mbs["import"] / mbs["sha"]
  }'
