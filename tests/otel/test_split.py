"""The run span of a run folded in one process and performed in others (Temporal): how it ends."""

from __future__ import annotations

import enum
from typing import cast

from agentsm_fn import SUSPEND, Machine, Performers, Shell, Snapshot, run
from agentsm_fn.core.observe import RunEnd, RunStart
from agentsm_fn.otel import trace_context
from agentsm_fn.otel.split import end_continued
from tests.core.sample import Ask, Mem, S, sample_machine
from tests.otel.spans import attributes, traced


def test_a_run_that_continues_as_new_is_not_reported_as_awaiting_a_human() -> None:
    sample = sample_machine()
    parked = run(sample, Mem(), Shell(Performers().on(Ask, lambda effect: SUSPEND))).unwrap()
    machine = cast(Machine[enum.Enum, enum.Enum, object], sample)  # an observer sees any machine
    assert parked.awaiting  # what a workflow hands the next run of its chain: parked at its next effect
    tracing = traced()
    watch = tracing.observer.run_started(
        RunStart(machine=machine, state=S.IDLE, memory=Mem(), steps=0, resumed=False, snapshot=None)
    )
    assert watch is not None
    end_continued(watch, RunEnd(snapshot=cast(Snapshot[enum.Enum, object], parked), reason=None))
    (span,) = tracing.named("invoke_agent sample")
    assert attributes(span, ["agentsm.run.status", "agentsm.run.continued", "agentsm.run.final_state"]) == {
        "agentsm.run.status": "continued",
        "agentsm.run.continued": True,
        "agentsm.run.final_state": parked.state.name,
    }
    assert trace_context(parked) == {}  # nothing to resume in a human's answer: the next run goes on
