"""Two observers as one: a live view and tracing both see every run."""

from __future__ import annotations

import io

from rich.console import Console

from agentsm_fn import Performers, Shell, StepClock, run
from agentsm_fn.live import LiveView
from agentsm_fn.shell.observers import Both
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
