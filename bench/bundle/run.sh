#!/usr/bin/env bash
# Benchmarks Evidence bundles through the CLI a user runs, against a raw
# SHA-256 of the same file (sha256sum), as whole processes, interleaved:
#
#   rea evidence-import B          validate the bundle completely (every
#                                  evidence ID re-derived, canonical form,
#                                  manifests rebuilt, unknown graph) and
#                                  import it into the command's ledger
#   rea evidence-export OUT --from B
#                                  the same import, then write the ledger out
#                                  again (streamed, fsynced, renamed)
#
# The bundle holds `records` list_names records of about 1.3 KB each, written
# by bundlebench -mode export. Above 10,000 records (the ledger's default
# bound) rea runs with REA_LEDGER_MAX_RECORDS set to the count, the setting a
# user would raise; the script says so.
#
#   bench/bundle/run.sh [records]   (default 10000; RUNS=n runs, default 5)
#
# Prints the load average before and after: on a busy machine trust CPU time
# and peak RSS over wall time.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
records=${1:-10000}
runs=${RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/bundlebench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=../internal/pair.sh
. "$root/bench/internal/pair.sh"

go build -o "$work/bundlebench" "$here"
go build -o "$work/rea" "$root/cmd/rea"
bundle="$work/bundle.json"
"$work/bundlebench" -mode export -records "$records" -out "$bundle" > /dev/null
bytes=$(stat -c %s "$bundle")
cat "$bundle" > /dev/null # warm the page cache

rea=("$work/rea")
if [ "$records" -gt 10000 ]; then
  rea=(env REA_LEDGER_MAX_RECORDS="$records" "$work/rea")
  echo "rea runs with REA_LEDGER_MAX_RECORDS=$records (the default ledger holds 10,000 records)"
fi
"${rea[@]}" evidence-import "$bundle" | sed -n 1p

echo "$(nproc) CPUs; $records records, $bytes bytes; unit: MB = 10^6 bytes of the bundle file; medians of $runs interleaved runs of whole processes"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "rea evidence-import (validate completely, import) against sha256sum of the file:"
pair sha256sum rea-evidence-import sha256sum "$bundle" -- "${rea[@]}" evidence-import "$bundle"
echo "rea evidence-export --from (validate, import, write again) against sha256sum of the file:"
PAIR_BEFORE="rm -f $work/out.json" pair sha256sum rea-evidence-export sha256sum "$bundle" -- "${rea[@]}" evidence-export "$work/out.json" --from "$bundle"
cmp -s "$bundle" "$work/out.json" || { echo "the re-exported bundle differs from the original" >&2; exit 1; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
