"""benchmarks/store.py and benchmarks/codec.py run (quick mode); no timing is asserted here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def has_sqlite_saver() -> bool:
    """LangGraph alone is in the dev extra (the verifier reads its graphs); its SqliteSaver is in bench."""
    return (
        importlib.util.find_spec("langgraph") is not None
        and importlib.util.find_spec("langgraph.checkpoint.sqlite") is not None
    )


def test_the_store_benchmark_runs_every_side_it_can_in_quick_mode() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/store.py", "--quick", "--no-aimock"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [row[0] for row in rows] == ["3", "100"]
    if has_sqlite_saver():
        assert done.stdout.count("durable / LangGraph+SqliteSaver") == 2
    else:
        assert "LangGraph's SqliteSaver is not installed" in done.stdout


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
