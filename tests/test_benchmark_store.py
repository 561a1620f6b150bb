"""benchmarks/store.py (its PostgreSQL server, workers, aimock) and benchmarks/codec.py run in quick mode.

No timing is asserted here.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def has(module: str) -> bool:
    """Whether a benchmark peer is installed (LangGraph's savers and DBOS are in the bench extra, not dev)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def aimock_installed() -> bool:
    prefix = Path(os.environ.get("AIMOCK_PREFIX", ROOT / ".cache" / "aimock"))
    return (prefix / "node_modules" / "@copilotkit" / "aimock" / "dist" / "cli.js").is_file()


def test_the_store_benchmark_runs_every_side_it_can_in_quick_mode() -> None:
    if not aimock_installed():
        why = "aimock is not installed (run `bash scripts/aimock.sh`)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (CI=true: never skipped)")
        pytest.skip(why)
    done = subprocess.run(
        [sys.executable, "benchmarks/store.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = [line.split() for line in lines if line.strip()[:1].isdigit() and "ReAct" not in line]
    assert [row[0] for row in rows] == ["3", "100"]
    assert len(rows[0]) == 2 + 7  # K, effects, and each side: memory, both stores both ways, LangGraph twice
    assert done.stdout.count("transactions of a run") == 2
    for saver in ("sqlite", "postgres"):
        if has(f"langgraph.checkpoint.{saver}"):
            assert done.stdout.count(f"{saver} / LangGraph+{saver} saver") == 2
        else:
            assert f"LangGraph's {saver} saver is not installed" in done.stdout
    for workers in (1, 2, 4):
        assert f"20 ReAct runs against aimock, {workers} worker(s) on PostgreSQL" in done.stdout
    assert ("durable / DBOS" if has("dbos") else "DBOS is not installed") in done.stdout


def test_the_codec_benchmark_round_trips_a_react_memory() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/codec.py", "--entries", "5", "--rounds", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "durable codec" in done.stdout and "hand-written JSON codec" in done.stdout
