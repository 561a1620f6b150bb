#!/usr/bin/env bash
# Install the official AG-UI TypeScript client (@ag-ui/client, pinned) with npm, idempotently, and print the
# folder whose node_modules holds it. Prefix: $AGUI_CLIENT_PREFIX, else <repo>/.cache/agui-client. The AG-UI
# endpoint's tests run its HttpAgent with node from there (tests/agui/conftest.py, driver.cjs).
set -euo pipefail
VERSION="1.0.0"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${AGUI_CLIENT_PREFIX:-$ROOT/.cache/agui-client}"
PKG="$PREFIX/node_modules/@ag-ui/client/package.json"
# In CI (CI=true) a missing client is an error: the AG-UI tests must run there, not skip.
give_up() {
    if [ "${CI:-}" = "true" ]; then
        echo "agui-client: $1 (CI=true: failing instead of skipping the AG-UI client tests)" >&2
        exit 1
    fi
    echo "agui-client: $1; the AG-UI client tests will be skipped" >&2
    exit 0
}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    give_up "node and npm are required (Node >= 20)"
fi
installed=""
if [ -f "$PKG" ]; then
    installed="$(node -p "require(process.argv[1]).version" "$PKG" 2>/dev/null || true)"
fi
if [ "$installed" != "$VERSION" ]; then
    mkdir -p "$PREFIX"
    if ! npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "@ag-ui/client@$VERSION" >&2; then
        give_up "npm install failed"
    fi
fi
echo "$PREFIX"
