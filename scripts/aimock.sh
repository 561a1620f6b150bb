#!/usr/bin/env bash
# Install the aimock test peer (@copilotkit/aimock, pinned) with npm, idempotently, and print its CLI path.
# Prefix: $AIMOCK_PREFIX, else <repo>/.cache/aimock. Tests find it there (tests/providers/conftest.py).
set -euo pipefail
VERSION="1.43.0"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${AIMOCK_PREFIX:-$ROOT/.cache/aimock}"
CLI="$PREFIX/node_modules/@copilotkit/aimock/dist/cli.js"
PKG="$PREFIX/node_modules/@copilotkit/aimock/package.json"
# In CI (CI=true) a missing peer is an error: the integration tests must run there, not skip.
give_up() {
    if [ "${CI:-}" = "true" ]; then
        echo "aimock: $1 (CI=true: failing instead of skipping the integration tests)" >&2
        exit 1
    fi
    echo "aimock: $1; the aimock tests will be skipped" >&2
    exit 0
}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    give_up "node and npm are required (Node >= 20.15)"
fi
installed=""
if [ -f "$PKG" ]; then
    installed="$(node -p "require(process.argv[1]).version" "$PKG" 2>/dev/null || true)"
fi
if [ "$installed" != "$VERSION" ] || [ ! -f "$CLI" ]; then
    mkdir -p "$PREFIX"
    if ! npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "@copilotkit/aimock@$VERSION" >&2; then
        give_up "npm install failed"
    fi
fi
echo "$CLI"
