#!/usr/bin/env bash
# Install the official AG-UI TypeScript client (@ag-ui/client, pinned) with npm, idempotently, and print the
# folder whose node_modules holds it. Prefix: $AGUI_CLIENT_PREFIX, else <repo>/.cache/agui-client. The AG-UI
# endpoint's tests run its HttpAgent with node from there (tests/agui/conftest.py, driver.cjs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${AGUI_CLIENT_PREFIX:-$ROOT/.cache/agui-client}"
source "$ROOT/scripts/npm_peer.sh"
npm_peer agui-client "@ag-ui/client" "1.0.0" "$PREFIX"
echo "$PREFIX"
