"""benchmarks/verify.py's exploration figures: the explorer and the floor count the same states; no timing."""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_the_exploration_benchmark_and_its_floor_agree_on_the_space() -> None:
    bench = load_benchmark("verify")
    states, edges, took, floor, per_state = bench.exploration(2)  # the floor's count is asserted inside
    assert states > 100 and edges > 0 and took > 0 and floor > 0 and per_state > 0


def test_the_exploration_rows_print_rate_floor_and_memory(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("verify")
    assert bench.explore_rows(2) is False  # a small space cannot meet the 100,000-state target
    out = capsys.readouterr().out
    assert "states/s (target >= 10,000/s on >= 100,000 states)" in out
    assert "explore costs" in out and "bytes" in out
