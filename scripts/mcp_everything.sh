#!/usr/bin/env bash
# Install the MCP reference server (@modelcontextprotocol/server-everything, pinned) with npm, idempotently,
# and print the path of its entry point (run it with node). Prefix: $MCP_EVERYTHING_PREFIX, else
# <repo>/.cache/mcp-everything. Tests find it there (tests/mcp/everything.py).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${MCP_EVERYTHING_PREFIX:-$ROOT/.cache/mcp-everything}"
PKG="$PREFIX/node_modules/@modelcontextprotocol/server-everything/package.json"
source "$ROOT/scripts/npm_peer.sh"
npm_peer mcp-everything "@modelcontextprotocol/server-everything" "2026.8.31" "$PREFIX"
# The entry point the package declares as its bin, resolved to an absolute path.
node -e '
const path = require("path");
const pkgPath = process.argv[1];
const pkg = require(pkgPath);
const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin)[0];
console.log(path.resolve(path.dirname(pkgPath), bin));
' "$PKG"
