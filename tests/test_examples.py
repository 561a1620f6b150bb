"""The core examples run offline and say what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str) -> str:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_refund_workflow_runs_both_machines_and_replays() -> None:
    out = run_example("refund_workflow.py")
    assert "refunds: refund of 50 -> Paid" in out
    assert "refunds: refund of 900 -> Refused" in out
    assert "strict-refunds: refund of 50 -> Paid" in out
    assert "request AskManager" in out
    assert "replays from its journal" in out
