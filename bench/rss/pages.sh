#!/usr/bin/env bash
# Which pages of the rea executable a process keeps resident (the
# file-backed part of its RSS), by ELF section, region and Go package:
# an idle `rea serve`, `rea analyze-javascript-application APP` at its peak,
# and the same analysis with the executable paged out once start-up is over,
# which leaves resident only what the analysis itself touches. Run as root
# (the last measurement pages another process's memory out); see
# bench/rss/pages/main.go for the method.
#
#   bench/rss/pages.sh [-rea BIN] [-after 400ms] [-top 20] APP
set -euo pipefail
cd "$(dirname "$0")/../.."
rea="" after=400ms top=20
while [ $# -gt 1 ]; do
	case "$1" in
	-rea) rea=$2; shift 2 ;;
	-after) after=$2; shift 2 ;;
	-top) top=$2; shift 2 ;;
	*) break ;;
	esac
done
app=${1:?usage: bench/rss/pages.sh [-rea BIN] [-after 400ms] [-top 20] APP}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$rea" ]; then
	rea=$work/rea
	go build -o "$rea" ./cmd/rea
fi
go build -o "$work/pages" ./bench/rss/pages
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== idle rea serve (after initialize)"
"$work/pages" -top "$top" -serve "$rea"
echo
echo "== rea analyze-javascript-application $app, at the peak"
"$work/pages" -top "$top" "$rea" analyze-javascript-application "$app"
echo
echo "== the same, the executable paged out $after after the start: what the analysis itself touches"
"$work/pages" -top "$top" -pageout "$after" "$rea" analyze-javascript-application "$app"
