"""Two observers as one: a live view and tracing both see every run."""

from __future__ import annotations

import enum
import io

from rich.console import Console

from agentsm_fn import Performers, Shell, StepClock, run
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunObserver, RunStart, RunWatch
from agentsm_fn.live import LiveView
from agentsm_fn.shell.observers import Both
from agentsm_fn.shell.observing import start_watching
from agentsm_fn.shell.streaming import stream
from tests.core.sample import Ask, Mem, sample_machine
from tests.otel.spans import traced


def test_both_observers_see_the_run_and_the_trace_carrier_is_the_tracers() -> None:
    tracing, out = traced(), io.StringIO()
    carriers: list[dict[str, str]] = []
    both = Both(LiveView(Console(file=out, width=120)), tracing.observer)

    def ask(_effect: Ask) -> int:
        carriers.append(dict(both.trace_carrier()))
        return 5

    assert run(sample_machine(), Mem(), Shell(Performers().on(Ask, ask), StepClock(), both)).unwrap().finished
    assert tracing.trees() == [("invoke_agent sample", (("Ask", ()), ("Ask", ()), ("Ask", ())))]
    assert out.getvalue().count("✓   Ask") == 3 and "■ finished in DONE" in out.getvalue()
    (root,) = tracing.roots()
    assert root.context is not None
    assert {c["traceparent"].split("-")[2] for c in carriers} == {f"{root.context.span_id:016x}"}


class _Ended:
    def effect_ended(self, outcome: object, seconds: float) -> None:
        pass

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        pass


class _Transitions:
    """A watch of transitions only: it has no ``effect_requested``."""

    def run_started(self, start: RunStart) -> RunWatch:
        return self

    def transition(self, *args: object) -> None:
        pass

    def effect_started(self, effect: object, within: EffectWatch | None) -> EffectWatch:
        return _Ended()

    def run_ended(self, end: RunEnd) -> None:
        pass


class _Requests(_Transitions):
    """A watch that takes the trace's request rows too (a run stream's does)."""

    def __init__(self) -> None:
        self.requests: list[str] = []

    def effect_requested(self, step: int, state: enum.Enum, effect: str, summary: str, at: float) -> None:
        self.requests.append(summary)


def test_request_rows_go_to_each_watch_that_takes_them_and_cost_nothing_when_none_does() -> None:
    first, second = _Requests(), _Requests()
    performers = Performers().on(Ask, lambda _effect: 5)
    for both in (Both(first, second), Both(_Transitions(), second), Both(first, _Transitions())):
        assert run(sample_machine(), Mem(), Shell(performers, StepClock(), both)).unwrap().finished
    assert first.requests == ["Ask"] * 6 and second.requests == ["Ask"] * 6
    nobody = start_watching(Both(_Transitions(), _Transitions()), sample_machine(), Mem())
    assert nobody is not None and nobody.requested is None  # the shell skips request rows


class _Broken:
    """An application's observer with a bug: every callback raises."""

    def run_started(self, start: RunStart) -> RunWatch:
        return self

    def transition(self, *args: object) -> None:
        raise RuntimeError("bug in transition")

    def effect_requested(self, *args: object) -> None:
        raise RuntimeError("bug in effect_requested")

    def effect_started(self, effect: object, within: EffectWatch | None) -> EffectWatch:
        raise RuntimeError("bug in effect_started")

    def memory_after(self, step: int, memory: object) -> None:
        raise RuntimeError("bug in memory_after")

    def run_ended(self, end: RunEnd) -> None:
        raise RuntimeError("bug in run_ended")


def test_an_observer_that_raises_costs_the_other_nothing_a_run_stream_included() -> None:
    performers = Performers().on(Ask, lambda _effect: 5)

    def streamed(observer: RunObserver | None) -> list[tuple[str, int]]:
        events = stream(sample_machine(), Mem(), Shell(performers, StepClock(), observer), run_id="r")
        return [(type(event).__name__, event.position) for event in events]

    assert streamed(_Broken()) == streamed(None)  # the shell's broken observer beside the stream's watch
    requests = _Requests()
    assert (
        run(sample_machine(), Mem(), Shell(performers, StepClock(), Both(_Broken(), requests)))
        .unwrap()
        .finished
    )
    assert requests.requests == ["Ask"] * 3
