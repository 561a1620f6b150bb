#!/usr/bin/env bash
# One entry point for newcomers and CI.
#   bash scripts/dev.sh demo   set up .venv and run the main demo
#   bash scripts/dev.sh test   set up .venv (+ the aimock and MCP reference servers, the AG-UI TypeScript client,
#                              and the Debian packages of scripts/system-packages.txt when run as root) and run
#                              every check and test
# Needs only python3 (3.11+) and, for the provider and MCP integration tests, Node 20 with npm.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  # Reinstall only when pyproject.toml changed since the last successful install.
  local stamp="$VENV/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e '.[dev]'
    rm -f "$VENV"/.installed-*
    touch "$stamp"
  fi
}

demo() {
  setup
  if [ -f examples/multi_tool_agent.py ]; then
    "$VENV/bin/python" examples/multi_tool_agent.py
  else
    "$VENV/bin/python" examples/refund_workflow.py
  fi
}

test_all() {
  setup
  bash scripts/system_packages.sh
  if [ -f scripts/aimock.sh ]; then
    bash scripts/aimock.sh
  fi
  if [ -f scripts/agui_client.sh ]; then
    bash scripts/agui_client.sh >/dev/null
  fi
  if [ -f scripts/mcp_everything.sh ]; then
    bash scripts/mcp_everything.sh >/dev/null
  fi
  if [ -f scripts/inspector.sh ]; then
    bash scripts/inspector.sh install  # the inspector's pinned build tools: a test rebuilds it and compares
  fi
  local targets="agentsm_fn verification tests examples"
  if [ -d benchmarks ]; then targets="$targets benchmarks"; fi
  echo "== ruff check"; "$VENV/bin/ruff" check .
  echo "== ruff format --check"; "$VENV/bin/ruff" format --check .
  echo "== mypy --strict $targets"; "$VENV/bin/mypy" --strict $targets
  if grep -q '^\[tool.agentsm_fn\]' pyproject.toml && [ -f verification/__main__.py ]; then
    echo "== verify the built-in machines"; "$VENV/bin/python" -m verification
  fi
  echo "== pytest"; "$VENV/bin/python" -m pytest -q "$@"
}

case "${1:-}" in
  demo) shift; demo "$@" ;;
  test) shift; test_all "$@" ;;
  *) echo "usage: bash scripts/dev.sh demo|test [pytest args]" >&2; exit 2 ;;
esac
