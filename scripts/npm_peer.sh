#!/usr/bin/env bash
# Sourced by the scripts that install a pinned npm package the tests run with node (aimock.sh, agui_client.sh,
# mcp_everything.sh): `npm_peer LABEL PACKAGE VERSION PREFIX` installs PACKAGE@VERSION under PREFIX unless that
# exact version is there, idempotently. In CI (CI=true) a missing node/npm or a failed install is an error (the
# tests that need the package must run there, not skip); elsewhere it says so and exits 0 (they are skipped).
npm_peer() {
    local label="$1" package="$2" version="$3" prefix="$4"
    local pkg="$prefix/node_modules/$package/package.json"
    give_up() {
        if [ "${CI:-}" = "true" ]; then
            echo "$label: $1 (CI=true: failing instead of skipping the tests that need it)" >&2
            exit 1
        fi
        echo "$label: $1; the tests that need it will be skipped" >&2
        exit 0
    }
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        give_up "node and npm are required (Node >= 20)"
    fi
    local installed=""
    if [ -f "$pkg" ]; then
        installed="$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)"
    fi
    if [ "$installed" != "$version" ]; then
        mkdir -p "$prefix"
        if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$package@$version" >&2; then
            give_up "npm install failed"
        fi
    fi
}
