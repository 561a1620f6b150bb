#!/usr/bin/env bash
# Install the aimock test peer (@copilotkit/aimock, pinned) with npm, idempotently, and print its CLI path.
# Prefix: $AIMOCK_PREFIX, else <repo>/.cache/aimock. Tests find it there (tests/providers/conftest.py).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${AIMOCK_PREFIX:-$ROOT/.cache/aimock}"
source "$ROOT/scripts/npm_peer.sh"
npm_peer aimock "@copilotkit/aimock" "1.43.0" "$PREFIX"
echo "$PREFIX/node_modules/@copilotkit/aimock/dist/cli.js"
