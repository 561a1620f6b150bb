#!/usr/bin/env bash
# Install the Debian packages listed in scripts/system-packages.txt that are missing, idempotently.
# As root it runs apt-get (update first); otherwise it says exactly what to install. Under CI=true a
# package that cannot be installed is an error (the tests that need it must run there, not skip).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/scripts/system-packages.txt" | awk '{print $1}')
missing=()
for package in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    exit 0
fi
message="missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
if [ "${CI:-}" = "true" ]; then
    echo "system packages: $message (CI=true: failing instead of skipping their tests)" >&2
    exit 1
fi
echo "system packages: $message; the tests that need them will be skipped" >&2
