"""The dropped-clients benchmark keeps working (benchmarks/dropped.py: the figures of docs/server.md)."""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_the_quick_run_counts_drops_and_finds_no_send_error_and_no_task_held(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load_benchmark("dropped").main(["--quick"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert int(out[1].rsplit(" ", 1)[1]) > 10  # dropped connections
    assert out[2].startswith('lines of "socket.send() raised exception.": 0 ')
    assert out[3].endswith(": True")
    assert out[4].endswith(": 0 (none)")
    assert ": 0 lines" in out[5]
