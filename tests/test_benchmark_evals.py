"""benchmarks/evals.py keeps working (it prints the figures; no timing is asserted here)."""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_the_quick_run_measures_the_three_figures_and_stores_every_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load_benchmark("evals").main(["--quick"]) == 0  # it asserts every case's run and result is stored
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == [
        "machinery, 20 cases at concurrency 8",
        "replay of a stored run of 1000 steps (1000 effects)",
        "50 cases at concurrency 8",
    ]
