"""Every ReAct example runs offline (scripted LLM, no provider keys in the environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("example", "expected"),
    [
        ("basic_agent.py", "The capital of France is Paris"),
        ("multi_tool_agent.py", "15% of Paris's 2,102,650 inhabitants is about 315,398 people."),
        ("human_approval_agent.py", "SUCCESS: email sent to team@example.com"),
    ],
)
def test_example_runs_offline(example: str, expected: str) -> None:
    done = _run(f"examples/{example}")
    assert done.returncode == 0, done.stderr
    assert "LLM: scripted" in done.stdout
    assert expected in done.stdout
    assert "Done" in done.stdout


def test_multi_tool_example_shows_blacklist_parallel_reflection_and_routing() -> None:
    out = _run("examples/multi_tool_agent.py", "--offline").stdout
    for marker in ("ToolBlacklisted", "LlmParallelToolCalls", "NeedsReflection", "[SUMMARY]"):
        assert marker in out
    assert "models per LLM call: ['scripted-small'" in out


def test_human_approval_example_across_two_processes(tmp_path: Path) -> None:
    stored = tmp_path / "run.json"
    first = _run("examples/human_approval_agent.py", "--offline", "--suspend-to", str(stored))
    assert first.returncode == 0, first.stderr
    assert "paused in WaitingForHuman: send_email" in first.stdout
    assert stored.exists()
    second = _run(
        "examples/human_approval_agent.py", "--offline", "--resume-from", str(stored), "--decision", "modify"
    )
    assert second.returncode == 0, second.stderr
    assert "SUCCESS: email sent to leads@example.com" in second.stdout
    assert "HumanModified" in second.stdout
