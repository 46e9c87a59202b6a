#!/usr/bin/env bash
# Peak RSS of rea against input size on real binaries (1 to 272 MB) and on
# applications of 10 to 300 MB of npm packages; see bench/rss/main.go.
# Install the packages first, e.g.:
#   npm install --prefix /tmp/rss-npm typescript webpack @babel/core \
#     @babel/preset-env aws-sdk@2 lodash rxjs terser monaco-editor three pdfjs-dist
#   bench/rss/run.sh -npm /tmp/rss-npm/node_modules
set -euo pipefail
cd "$(dirname "$0")/../.."
exec go run ./bench/rss "$@"
