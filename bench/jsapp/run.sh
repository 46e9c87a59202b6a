#!/usr/bin/env bash
# analyze_javascript_application through the CLI against a parse-only
# baseline with the same parser over the same files, interleaved, on apps of
# 10, 50 and 100 MB of JavaScript made of this machine's npm packages (the
# repository's node_modules and the global one). Needs `npm ci` at the
# repository root, unless -corpora DIR names corpora built earlier (-keep DIR).
# Arguments go to the bench (-sizes 10,50,100 -runs 3 -against OLD_REA).
set -euo pipefail
cd "$(dirname "$0")/../.."
case " $* " in
*" -corpora "*) ;; # corpora built earlier need no node_modules
*) test -d node_modules || { echo "run npm ci at the repository root first" >&2; exit 1; } ;;
esac
go run ./bench/jsapp -root . "$@"
