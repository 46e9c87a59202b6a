#!/bin/sh
# .NET benchmark: rea's whole-file CIL listing (rea disassemble: every
# method's instructions under its name) against mono's ikdasm (the whole
# assembly as ILAsm: the same instructions plus declarations, attributes
# and signatures, so ikdasm prints more per method), and rea analyze (the
# overview: methods, names, user strings) alone, interleaved, on mono's
# mscorlib, System and System.Xml. Prints each run's wall and CPU seconds
# and peak RSS (whole process, /usr/bin/time), their medians, the ratio of
# the medians and the load average. Needs mono-devel (ikdasm and the
# assemblies) and GNU time.
#
# Usage: bench/cil/run.sh [runs]
set -eu
cd "$(dirname "$0")/../.."
runs=${1:-5}
command -v ikdasm >/dev/null || { echo "ikdasm is missing (apt-get install -y mono-devel)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is missing (apt-get install -y time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rea" ./cmd/rea
echo "machine: $(nproc) cores, $(uname -sr); runs: $runs"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
measure() { # label file command...: appends "wall cpu rss_kb" to $tmp/label
	label=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
	awk '{printf "%s %.2f %d\n", $1, $2+$3, $4}' "$tmp/t" >>"$tmp/$label"
}
median() { # file column
	sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'
}
printf "%-14s %-10s %8s %8s %8s\n" assembly command wall_s cpu_s rss_mb
for dll in /usr/lib/mono/4.5/mscorlib.dll /usr/lib/mono/4.5/System.dll /usr/lib/mono/4.5/System.Xml.dll; do
	[ -e "$dll" ] || continue
	name=$(basename "$dll" .dll)
	rm -f "$tmp/rea-$name" "$tmp/ikdasm-$name" "$tmp/analyze-$name"
	i=0
	while [ "$i" -lt "$runs" ]; do
		measure "rea-$name" "$tmp/rea" disassemble "$dll"
		measure "ikdasm-$name" ikdasm "$dll"
		measure "analyze-$name" "$tmp/rea" analyze "$dll"
		i=$((i + 1))
	done
	for c in rea ikdasm analyze; do
		f="$tmp/$c-$name"
		printf "%-14s %-10s %8s %8s %8.0f\n" "$name" "$c" "$(median "$f" 1)" "$(median "$f" 2)" "$(($(median "$f" 3) / 1024))"
	done
	awk -v a="$(median "$tmp/rea-$name" 1)" -v b="$(median "$tmp/ikdasm-$name" 1)" -v n="$name" \
		'BEGIN {printf "%-14s ikdasm/rea wall: %.1fx\n", n, b/a}'
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
