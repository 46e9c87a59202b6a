#!/usr/bin/env bash
# Whole-binary matching (rea compare, i.e. compare_binaries) of two versions
# of large real programs, with wall time, peak memory and the load average
# around each run. Run from anywhere; needs go (the toolchains come from the
# Go module proxy as golang.org/toolchain modules) and /usr/bin/time.
#
#   pairs:   go command     go1.24.0 vs go1.25.0  (~14 MB each, symbols)
#            gofmt          go1.24.0 vs go1.25.0  (~3 MB each, symbols)
#            compile        go1.24.0 vs go1.25.0  (~21 MB each, symbols)
#            cc1 vs cc1plus of the installed gcc (stripped, ~34 MB each:
#            no names, so structural matching does the work), when present
#
# PAIRS selects a subset (e.g. PAIRS="gofmt go"); OLD and NEW choose the
# toolchain versions.
#
# Reference runs (2026-12-03, 2 cores shared with other jobs: load average
# 20-37 throughout, so wall times are several times the CPU time):
#   gofmt   1.24.0 vs 1.25.0: 3,098 / 3,174 functions, 3,062 matched (match
#           rate 0.988: 3,054 by name, 8 by instruction hash), 1,739
#           unchanged, 1,323 changed, 112 added, 36 removed; 23 s wall
#   go      1.24.0 vs 1.25.0: 13,765 / 14,281 functions, 13,457 matched
#           (0.978: 13,438 by name, 19 by hash), 8,679 unchanged, 4,778
#           changed, 824 added, 308 removed; 280 s wall, peak RSS 747 MB
#           (before the normalization memo)
#   cc1 vs cc1plus (gcc 12, stripped, 33 and 35 MB): 44,728 / 48,518
#           functions, 42,419 matched (0.948: 25,533 by name, 10,224 by
#           hash, 4,141 by structure, 2,521 by call-graph position); 1,623 s
#           wall, 185 s user CPU, peak RSS 1.63 GB. Before the structural
#           rounds were narrowed to size neighbours this pair's structural
#           matching was skipped (over 4M candidate pairs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
old=${OLD:-1.24.0} new=${NEW:-1.25.0}
pairs=${PAIRS:-"gofmt go compile cc1"}
(cd "$root" && go build -o "$work/rea" ./cmd/rea)

toolchain() { # version -> directory of the extracted toolchain
  local v=$1 zip
  zip=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "golang.org/toolchain@v0.0.1-go$v.linux-amd64" | sed -n 's/.*"Zip": "\(.*\)".*/\1/p')
  mkdir -p "$work/go$v"
  unzip -q -o "$zip" "*/bin/go" "*/bin/gofmt" "*/pkg/tool/linux_amd64/compile" -d "$work/go$v"
  echo "$work/go$v/golang.org/toolchain@v0.0.1-go$v.linux-amd64"
}

run() { # name left right
  local name=$1 l=$2 r=$3
  printf '\n== %s: %s (%s bytes) vs %s (%s bytes)\n' "$name" "$l" "$(stat -c %s "$l")" "$r" "$(stat -c %s "$r")"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
  /usr/bin/time -f "wall %e s, user %U s, sys %S s, peak RSS %M KB" \
    "$work/rea" --format json compare "$l" "$r" >"$work/$name.json" 2>"$work/$name.time" || { cat "$work/$name.time"; return 1; }
  tail -1 "$work/$name.time"
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 - "$work/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d.get("normalized_result", d)
s = r["summary"]
print(f"functions {s['left_functions']} / {s['right_functions']}: matched {s['matched']} (match rate {s['match_rate']}), "
      f"unchanged {s['unchanged']}, changed {s['changed']}, added {s['added']}, removed {s['removed']}; by basis {s['by_basis']}")
for l in r.get("limitations", []) + d.get("limitations", []):
    print("limitation:", l)
PY
}

case " $pairs " in *" go "*|*" gofmt "*|*" compile "*)
  a=$(toolchain "$old"); b=$(toolchain "$new")
  for p in $pairs; do
    case $p in
      go) run "go-$old-vs-$new" "$a/bin/go" "$b/bin/go" ;;
      gofmt) run "gofmt-$old-vs-$new" "$a/bin/gofmt" "$b/bin/gofmt" ;;
      compile) run "compile-$old-vs-$new" "$a/pkg/tool/linux_amd64/compile" "$b/pkg/tool/linux_amd64/compile" ;;
    esac
  done ;;
esac
case " $pairs " in *" cc1 "*)
  cc1=$(ls /usr/lib/gcc/x86_64-linux-gnu/*/cc1 2>/dev/null | tail -1 || true)
  if [ -n "$cc1" ] && [ -x "${cc1}plus" ]; then
    run "cc1-vs-cc1plus" "$cc1" "${cc1}plus"
  else
    echo "cc1 and cc1plus not found: skipping the stripped pair"
  fi ;;
esac
