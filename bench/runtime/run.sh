#!/usr/bin/env bash
# Benchmarks the running-JavaScript tools on a large dependency tree:
# observe_javascript_runtime on a Node process (node --inspect=127.0.0.1:0)
# that has loaded the package, analyze_javascript_application on the same
# tree, and reconcile_javascript_runtime of the two. Prints wall time,
# scripts per second and the bytes of each Evidence record.
#
#   bench/runtime/run.sh [package]   (default typescript; webpack also works)
#
# Needs go, node and npm (the package is installed into a temporary
# directory, removed on exit, unless node_modules/<package> exists at the
# repository root, which is then copied).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pkg=${1:-typescript}
command -v node >/dev/null || { echo "node not found" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/runtimebench.XXXXXX")
node_pid=
cleanup() {
  if [ -n "$node_pid" ]; then kill "$node_pid" 2>/dev/null || true; wait "$node_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

app="$work/app"
mkdir -p "$app"
if [ -d "$root/node_modules/$pkg" ]; then
  mkdir -p "$app/node_modules" && cp -r "$root/node_modules/$pkg" "$app/node_modules/"
else
  (cd "$app" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent "$pkg" >/dev/null)
fi
cat > "$app/entry.cjs" <<JS
// Loads the package's whole module tree, then waits for the observer.
require('$pkg');
// webpack and others export lazy getters: touch every export once.
const m = require('$pkg');
for (const k of Object.keys(m)) { try { void m[k]; } catch (_) {} }
process.stdout.write('ready\n');
setInterval(() => {}, 1000);
JS

(cd "$root" && go build -o "$work/rea" ./cmd/rea)
rea="$work/rea"

node --inspect=127.0.0.1:0 "$app/entry.cjs" >"$work/node.out" 2>"$work/node.err" &
node_pid=$!
for _ in $(seq 1 200); do grep -q ready "$work/node.out" 2>/dev/null && grep -q 'Debugger listening' "$work/node.err" && break; sleep 0.05; done
endpoint=http://$(grep -o '127\.0\.0\.1:[0-9]*' "$work/node.err" | head -1)
target=$(grep -o 'ws://[^ ]*' "$work/node.err" | head -1 | sed 's#.*/##')

ms() { echo $(( $(date +%s%N) / 1000000 )); }
# CPU time (user+system) and peak RSS of each rea process, from GNU time
# when it is installed (the figures to trust on a loaded machine).
timed() {
  local out=$1; shift
  if [ -x /usr/bin/time ]; then /usr/bin/time -f '%U %S %M' -o "$work/$out.time" "$@"; else echo "0 0 0" >"$work/$out.time"; "$@"; fi
}
t0=$(ms); timed obs "$rea" observe-javascript-runtime "$endpoint" "$target" --runtime-kind node --observation-ms 100 --format json >"$work/obs.json"; t1=$(ms)
timed app "$rea" analyze-javascript-application "$app" --format json >"$work/app.json"; t2=$(ms)
timed rec "$rea" reconcile-javascript-runtime --application "$work/app.json" --observation "$work/obs.json" --format json >"$work/rec.json"; t3=$(ms)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

node - "$work" $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) "$pkg" <<'JS'
const fs = require('fs');
const [work, obsMsRaw, anMsRaw, recMsRaw, pkg] = process.argv.slice(2);
const cost = (f) => {
  const [u, s, kb] = fs.readFileSync(`${work}/${f}.time`, 'utf8').trim().split(/\s+/).map(Number);
  return kb ? `, CPU ${(u + s).toFixed(2)} s, peak RSS ${(kb / 1024).toFixed(0)} MiB` : '';
};
const [obsMs, anMs, recMs] = [obsMsRaw, anMsRaw, recMsRaw];
const size = (f) => fs.statSync(`${work}/${f}`).size;
const obs = JSON.parse(fs.readFileSync(`${work}/obs.json`)).normalized_result;
const rec = JSON.parse(fs.readFileSync(`${work}/rec.json`)).normalized_result;
const scripts = obs.scripts.items.length;
console.log(`package: ${pkg}`);
console.log(`observe_javascript_runtime: ${obsMs} ms wall (100 ms window, whole rea process), ${scripts} scripts kept of ${obs.scripts.observed_total} parsed, ${Math.round(scripts / (obsMs / 1000))} scripts/s, Evidence ${size('obs.json')} bytes${cost('obs')}`);
console.log(`analyze_javascript_application: ${anMs} ms wall, Evidence ${size('app.json')} bytes${cost('app')}`);
const s = rec.summary;
console.log(`reconcile_javascript_runtime: ${recMs} ms wall, ${s.runtime_entities} runtime scripts (${Math.round(s.runtime_entities / (recMs / 1000))} scripts/s): matched ${s.matched}, ambiguous ${s.ambiguous}, unmatched ${s.unmatched}, unknown ${s.unknown}; load states loaded ${s.load_state_loaded || 0}, resident in a loaded asset ${s.load_state_resident_in_loaded_asset || 0}, not observed ${s.load_state_not_observed_in_capture || 0}, unknown ${s.load_state_unknown || 0}; Evidence ${size('rec.json')} bytes${cost('rec')}`);
JS
