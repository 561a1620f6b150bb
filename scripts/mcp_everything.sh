#!/usr/bin/env bash
# Install the MCP reference server (@modelcontextprotocol/server-everything, pinned) with npm, idempotently,
# and print the path of its entry point (run it with node). Prefix: $MCP_EVERYTHING_PREFIX, else
# <repo>/.cache/mcp-everything. Tests find it there (tests/mcp/everything.py).
set -euo pipefail
VERSION="2026.8.31"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${MCP_EVERYTHING_PREFIX:-$ROOT/.cache/mcp-everything}"
PKG="$PREFIX/node_modules/@modelcontextprotocol/server-everything/package.json"
# In CI (CI=true) a missing server is an error: the MCP tests must run there, not skip.
give_up() {
    if [ "${CI:-}" = "true" ]; then
        echo "mcp-everything: $1 (CI=true: failing instead of skipping the MCP reference-server tests)" >&2
        exit 1
    fi
    echo "mcp-everything: $1; the MCP reference-server tests will be skipped" >&2
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
    if ! npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/server-everything@$VERSION" >&2; then
        give_up "npm install failed"
    fi
fi
# The entry point the package declares as its bin, resolved to an absolute path.
node -e '
const path = require("path");
const pkgPath = process.argv[1];
const pkg = require(pkgPath);
const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin)[0];
console.log(path.resolve(path.dirname(pkgPath), bin));
' "$PKG"
