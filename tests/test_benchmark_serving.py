"""The server's benchmark sections keep working (no timing here: benchmarks/server.py prints the figures)."""

from __future__ import annotations

import importlib
import sys

import pytest

from tests.test_benchmarks import ROOT


def test_the_quick_run_prints_every_figure_and_every_client_got_every_event(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.append(str(ROOT / "benchmarks"))
    serving = importlib.import_module("_serving")  # by the name its other process stores values under
    serving.measure_serving(quick=True)
    out = capsys.readouterr().out
    assert "listing runs:" in out and "(target < 50 ms)" in out
    assert "event latency (committed there -> SSE client here): median" in out
    assert "4/4 clients received every event of their run, 4/4 in order, 0 events twice" in out
