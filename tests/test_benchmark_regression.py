"""The recorded-run benchmark keeps working (benchmarks/regression.py prints the figures)."""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_the_quick_run_replays_every_step_and_prints_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("regression")
    work = bench.recorded(4)
    assert bench.case(work.text) == 14 == len(work.recording.rows)
    assert bench.main(["--cycles", "20", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "a recorded run of 62 steps and 41 effects" in out
    assert "as a regression case (read, decode, replay, compare)" in out and "(target < 50 ms: " in out
