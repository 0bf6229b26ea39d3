#!/usr/bin/env bash
# Refreshes vendor/chart.umd.js from the npm registry: `npm ci` against package.json and
# package-lock.json (exact version and integrity hash) in a scratch folder, then copies the UMD
# bundle. To move to another Chart.js version: change package.json, run `npm install
# --package-lock-only` here, then this script; the build checks the bundle's banner against
# package.json. Needs npm and the network (the build itself needs neither).
set -euo pipefail
web="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp "$web/package.json" "$web/package-lock.json" "$scratch/"
(cd "$scratch" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
cp "$scratch/node_modules/chart.js/dist/chart.umd.js" "$web/vendor/chart.umd.js"
head -n 3 "$web/vendor/chart.umd.js" | tail -n 1
