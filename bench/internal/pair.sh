# Shared by the bench scripts (source it): interleaved whole-process pairs.
#
# pair LABEL_A LABEL_B CMD_A... -- CMD_B...
#   runs the two commands $runs times each, interleaved (a, b, a, b, ...),
#   under /usr/bin/time, with stdout discarded, and prints the medians of
#   wall seconds, CPU seconds (user + system) and peak RSS (MB = 10^6 bytes)
#   of each, the throughput over $bytes bytes of input, and the ratios b/a.
#   Needs $runs, $bytes and $work (a scratch directory); $PAIR_BEFORE, if
#   set, is run before every command (to remove the last run's output).
#   A command that fails stops the script with its stderr.
#
# med: the median of the numbers on stdin, one per line.

med() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

pair() {
  local la=$1 lb=$2; shift 2
  local a=() b=()
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  : > "$work/pair.$la"; : > "$work/pair.$lb"
  local i
  for i in $(seq "$runs"); do
    ${PAIR_BEFORE:-:}
    /usr/bin/time -f '%e %U %S %M' -o "$work/t" "${a[@]}" > /dev/null 2> "$work/err" || { cat "$work/err" "$work/t" >&2; return 1; }
    cat "$work/t" >> "$work/pair.$la"
    ${PAIR_BEFORE:-:}
    /usr/bin/time -f '%e %U %S %M' -o "$work/t" "${b[@]}" > /dev/null 2> "$work/err" || { cat "$work/err" "$work/t" >&2; return 1; }
    cat "$work/t" >> "$work/pair.$lb"
  done
  local wa ca ra wb cb rb
  wa=$(awk '{print $1}' "$work/pair.$la" | med); ca=$(awk '{print $2+$3}' "$work/pair.$la" | med); ra=$(awk '{print $4*1024/1e6}' "$work/pair.$la" | med)
  wb=$(awk '{print $1}' "$work/pair.$lb" | med); cb=$(awk '{print $2+$3}' "$work/pair.$lb" | med); rb=$(awk '{print $4*1024/1e6}' "$work/pair.$lb" | med)
  awk -v la="$la" -v lb="$lb" -v wa="$wa" -v ca="$ca" -v ra="$ra" -v wb="$wb" -v cb="$cb" -v rb="$rb" -v mb="$bytes" 'BEGIN {
    printf "%-22s wall %7.2f s  CPU %7.2f s  peak RSS %6.0f MB  %8.1f MB/s of wall\n", la, wa, ca, ra, mb / 1e6 / wa
    printf "%-22s wall %7.2f s  CPU %7.2f s  peak RSS %6.0f MB  %8.1f MB/s of wall\n", lb, wb, cb, rb, mb / 1e6 / wb
    r = "ratio"; w = wa > 0 ? sprintf("%6.2fx", wb / wa) : "   n/a"; c = ca > 0 ? sprintf("%6.2fx", cb / ca) : "   n/a"
    printf "%-22s wall %s  CPU %s  peak RSS %6.2fx  (%s / %s; n/a: below the timer'"'"'s 10 ms)\n\n", r, w, c, rb / ra, lb, la
  }'
}
