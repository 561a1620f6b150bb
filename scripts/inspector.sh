#!/usr/bin/env bash
# The run inspector's front end: install its pinned build tools (web/package-lock.json) and build it into
# agentsm_fn/inspector/static, which is committed and shipped in the wheel (installing the package needs no Node).
#   bash scripts/inspector.sh          npm ci (when web/node_modules is missing or stale) and build
#   bash scripts/inspector.sh install  npm ci only (the tests rebuild into a temporary folder and compare)
set -euo pipefail
cd "$(dirname "$0")/../web"
if ! command -v npm >/dev/null; then
  echo "the inspector's build needs Node 20 with npm" >&2
  exit 1
fi
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.package-lock.json.src 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.package-lock.json.src
fi
if [ "${1:-}" != "install" ]; then
  node build.mjs
fi
