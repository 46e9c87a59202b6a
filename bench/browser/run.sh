#!/usr/bin/env bash
# inspect_web_page on the fixture site and on a large React page, beside
# chrome-devtools-mcp's take_snapshot of the same page in the same headless
# Chromium, and capture_browser_scenario from launch to cleanup. Needs
# chromium and `npm ci` at the repository root (esbuild, the MCP SDK and
# chrome-devtools-mcp are pinned in package.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
test -x node_modules/.bin/esbuild || { echo "run npm ci at the repository root first" >&2; exit 1; }
test -d node_modules/chrome-devtools-mcp || { echo "run npm ci at the repository root first (chrome-devtools-mcp)" >&2; exit 1; }
echo "# $(go version | cut -d' ' -f3), $(nproc) CPUs"
go run ./bench/browser -root . -runs "${RUNS:-3}" -rows "${ROWS:-3000}"
