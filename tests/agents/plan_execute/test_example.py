"""examples/plan_execute_agent.py runs offline and shows what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_example_runs_offline_through_every_state_and_replays() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "plan_execute_agent.py"), "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "LLM: scripted" in out
    assert "=== FINAL RESULT (done: True) ===\nUse Prawn" in out
    assert "state: FINALIZE (terminal: True)" in out
    assert "{'from': 0, 'to': 1, 'reason': 'Input normalized', 'iteration': 0}" in out
    assert "{'from': 3, 'to': 6, 'reason': 'Finalized (no_tool_calls)', 'iteration': 3}" in out
    for event in ("VALID_PLAN", "CONTINUE", "TOOL_CALLS_PRESENT", "OBSERVED", "NO_TOOL_CALLS"):
        assert event in out
    assert "the run replays from its journal with no LLM and no tools: True" in out
    assert "=== ExecutionError ===\ninvalid_plan in PLAN" in out
    assert "state: HALT (terminal: True)" in out
