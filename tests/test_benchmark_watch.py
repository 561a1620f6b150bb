"""The ``GET /events`` and follower benchmark keeps working (benchmarks/watch.py prints the figures)."""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_the_quick_run_prints_every_look_and_reads_every_run_only_when_a_run_went_and_a_follower_less(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load_benchmark("watch").main(["--quick"]) == 0  # it asserts the count of full reads itself
    out = capsys.readouterr().out.splitlines()
    rows = {line[:46].strip(): line[46:].split() for line in out[2:6]}
    assert rows["sqlite, before: every run read"][1] == "1,000"
    assert rows["sqlite, after: nothing changed"][1] == "11"  # the runs of the last 10 s (LOOKBACK)
    assert rows["sqlite, after: 10 runs changed"][1] == "50"  # 5 looks of 10 changes, all in the window
    assert int(rows["sqlite, after: a run removed (every run read)"][1].replace(",", "")) >= 999
    (follow,) = [line.split() for line in out if line.strip().startswith("100 ")]
    assert int(follow[2]) >= 100 and float(follow[4]) == 1.5  # the whole journal, against its last row or two
