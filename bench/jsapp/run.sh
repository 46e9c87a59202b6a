#!/usr/bin/env bash
# analyze_javascript_application through the CLI against a parse-only
# baseline with the same parser over the same files, interleaved, on apps of
# 10, 50 and 100 MB of JavaScript made of this machine's npm packages (the
# repository's node_modules and the global one). Needs `npm ci` at the
# repository root. Arguments go to the bench (-sizes 10,50,100 -runs 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
test -d node_modules || { echo "run npm ci at the repository root first" >&2; exit 1; }
go run ./bench/jsapp -root . "$@"
