"""A watch with a ``row`` method gets the fold's trace rows as they are, instead of transition calls."""

from __future__ import annotations

import asyncio
import enum

import pytest

from agentsm_fn import Effect, Performers, Shell, StepClock, arun, run
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunStart
from tests.core.sample import Ask, Mem, sample_machine


class RowWatch:
    """Records the rows it is given, and any transition call (there must be none)."""

    def __init__(self, broken: bool = False) -> None:
        self.rows: list[tuple[int, object, object, object, object, float]] = []
        self.transitions = 0
        self.broken = broken

    def run_started(self, start: RunStart) -> RowWatch:
        return self

    def row(self, row: tuple[int, object, object, object, object, float]) -> None:
        self.rows.append(row)
        if self.broken:
            raise RuntimeError("row")

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        self.transitions += 1

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        return self

    def effect_ended(self, outcome: object, seconds: float) -> None:
        """Nothing to record."""

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """Nothing to record."""

    def run_ended(self, end: RunEnd) -> None:
        """Nothing to record."""


def _answers() -> Performers:
    it = iter((1, 2, 3))
    return Performers().on(Ask, lambda _e: next(it))


def test_a_row_watch_gets_every_trace_row_in_order_and_no_transition_calls() -> None:
    plain = run(sample_machine(), Mem(), Shell(_answers(), StepClock()))
    for runs in ("run", "arun"):
        watch = RowWatch()
        shell = Shell(_answers(), StepClock(), watch)
        result = (
            run(sample_machine(), Mem(), shell)
            if runs == "run"
            else asyncio.run(arun(sample_machine(), Mem(), shell))
        )
        assert result == plain
        assert watch.rows == list(result.unwrap().trace.rows)
        assert any(row[3] is None for row in watch.rows)  # effect requests come as rows too
        assert watch.transitions == 0


def test_a_row_watch_that_raises_never_changes_a_run(caplog: pytest.LogCaptureFixture) -> None:
    plain = run(sample_machine(), Mem(), Shell(_answers(), StepClock()))
    watch = RowWatch(broken=True)
    assert run(sample_machine(), Mem(), Shell(_answers(), StepClock(), watch)) == plain
    assert len(watch.rows) == len(plain.unwrap().trace.rows)
    assert "an observer raised in row" in caplog.text
