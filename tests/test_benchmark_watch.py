"""The ``GET /events`` look benchmark keeps working (no timing here: benchmarks/watch.py prints them)."""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_the_quick_run_prints_every_look_and_reads_every_run_only_when_one_was_removed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load_benchmark("watch").main(["--quick"]) == 0  # it asserts the count of full reads itself
    rows = {line[:46].strip(): line[46:].split() for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["sqlite, before: every run read"][1] == "1,000"
    assert rows["sqlite, after: nothing changed"][1] == "11"  # the runs of the last 10 s (LOOKBACK)
    assert rows["sqlite, after: 10 runs changed"][1] == "50"  # 5 looks of 10 changes, all in the window
    assert int(rows["sqlite, after: a run removed (every run read)"][1].replace(",", "")) >= 999
