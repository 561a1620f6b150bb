"""examples/mcp_agent.py runs offline against the reference server and says what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.mcp.conftest import ROOT, require_everything

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


def run_example(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "examples/mcp_agent.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def offline_env(prefix: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    return {**env, "MCP_EVERYTHING_PREFIX": prefix}


def test_the_mcp_example_runs_offline_against_the_reference_server() -> None:
    entry = Path(
        require_everything()[1]
    )  # .../<prefix>/node_modules/@modelcontextprotocol/server-everything/dist
    done = run_example(env=offline_env(str(entry.parents[4])))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "LLM: scripted" in out and "MCP server: mcp-servers/everything" in out
    assert "everything_get-sum: SUCCESS: The sum of 19 and 23 is 42." in out
    assert "[image image/png, " in out  # the logo, described as text
    assert "approval asked for everything_get-env" in out
    assert "everything_get-env: ERROR: HumanRejected: " in out
    assert "RunToolBatch everything_get-sum, everything_get-tiny-image" in out  # one reply, two calls at once
    assert "19 + 23 = 42." in out.split("=== FINAL ANSWER ===")[1]


def test_without_the_server_the_example_says_how_to_install_it(tmp_path: Path) -> None:
    done = run_example("--offline", env=offline_env(str(tmp_path)))
    assert done.returncode == 2
    assert "bash scripts/mcp_everything.sh" in done.stderr
