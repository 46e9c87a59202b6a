#!/usr/bin/env bash
# Source lines on big binaries, whole process: rea annotate with one
# inspect_address_context step (the first lookup) and with 100 steps,
# against addr2line -f -i -e BIN with the same addresses, interleaved, on
# rea's own Go binary (38 MB, compressed DWARF 5) and on libc's DWARF
# (libc6-dbg's detached file, which both tools read). Prints wall, user
# and system CPU and peak RSS (median of the runs) and the load average.
#
# Usage: bench/lines/run.sh [runs]
#   REA=path      the rea to measure (default: built from this tree)
#   REA_BASE=path a second rea to compare with (e.g. one built from main)
#   LIBC_DEBUG=path libc's debug file (default: found by libc.so.6's build ID)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for tool in addr2line nm readelf /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y binutils time)" >&2; exit 1; }
done
if [ -z "${REA:-}" ]; then
	REA=$work/rea
	go build -o "$REA" ./cmd/rea
fi
self=$work/rea-self
go build -o "$self" ./cmd/rea # the target: rea's own binary, as the brief measures it
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null || true)
if [ -z "${LIBC_DEBUG:-}" ] && [ -n "$libc" ]; then
	id=$(readelf -n "$libc" | awk '/Build ID/ {print $3}')
	LIBC_DEBUG=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
fi
targets=("$self")
if [ -f "${LIBC_DEBUG:-}" ]; then
	targets+=("$LIBC_DEBUG")
else
	echo "libc's debug file is missing (apt-get install -y libc6-dbg); libc is skipped" >&2
fi

# addresses: 100 function symbols spread over the file, 4 bytes in.
addresses() {
	nm -n "$1" | awk '$2 ~ /^[TtWi]$/ {print $1}' | sort -u >"$work/funcs"
	local n
	n=$(wc -l <"$work/funcs")
	awk -v step=$((n / 100)) 'NR % step == 1 {print $1}' "$work/funcs" | head -100 |
		while read -r h; do printf '0x%x\n' $((16#$h + 4)); done
}

# measure NAME CMD...: one run, appended to $work/NAME as "wall user sys rss".
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" >/dev/null 2>"$work/err" || {
		echo "$name failed:" >&2
		cat "$work/err" >&2
		exit 1
	}
	cat "$work/t" >>"$work/$name"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

report() {
	local name=$1 f=$work/$1
	printf '%-28s wall %6.3f s  user %6.3f s  sys %6.3f s  peak RSS %5.0f MB\n' "$name" \
		"$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
		"$(cut -d' ' -f3 "$f" | median)" "$(cut -d' ' -f4 "$f" | median | awk '{print $1/1024}')"
}

echo "machine: $(nproc) cores, $(uname -sr); $runs runs, medians"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
reas=("rea:$REA")
[ -n "${REA_BASE:-}" ] && reas+=("base:$REA_BASE")
for bin in "${targets[@]}"; do
	mapfile -t addrs < <(addresses "$bin")
	steps=()
	for a in "${addrs[@]}"; do steps+=("inspect_address_context={\"address\":\"$a\"}"); done
	label=$(basename "$bin")
	echo
	echo "$label ($(du -m "$bin" | cut -f1) MB), ${#addrs[@]} addresses"
	rm -f "$work"/m-*
	for _ in $(seq "$runs"); do
		for r in "${reas[@]}"; do
			measure "m-${r%%:*}-first" "${r#*:}" annotate "$bin" "${steps[0]}"
			measure "m-${r%%:*}-100" "${r#*:}" annotate "$bin" "${steps[@]}"
		done
		measure m-addr2line-first addr2line -f -i -e "$bin" "${addrs[0]}"
		measure m-addr2line-100 addr2line -f -i -e "$bin" "${addrs[@]}"
	done
	for r in "${reas[@]}"; do
		report "m-${r%%:*}-first"
		report "m-${r%%:*}-100"
	done
	report m-addr2line-first
	report m-addr2line-100
done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
