#!/usr/bin/env bash
# Throughput of analyze_javascript_application on real npm code (react,
# react-dom, lodash bundled by the pinned esbuild; and an ASAR of tens of
# MB). Needs `npm ci` at the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
test -x node_modules/.bin/esbuild || { echo "run npm ci at the repository root first" >&2; exit 1; }
echo "# case files bytes best_seconds MB/s (facts of the first call) ($(nproc) CPUs, $(go version | cut -d' ' -f3))"
go run ./bench/jsapp -root . -runs "${RUNS:-5}"
