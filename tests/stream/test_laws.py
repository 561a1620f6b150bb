"""The stream's law: on any machine, the live history is the history its trace and journal give.

Random machines (tests/core/machines.py) take every route the engine has: outcomes of the
wrong type, raising performers, unknown outcomes, failures with and without a route,
handlers that raise or fault, events with no row, the safety cap.
"""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from returns.result import Success

from agentsm_fn import arun
from agentsm_fn.shell import redact_credentials, stream
from agentsm_fn.shell.stream_history import history_of
from agentsm_fn.stream import AwaitingOutcome, Failed, Finished, RunStarted
from tests.core.machines import RandomMachine, random_machines
from tests.stream.helpers import history, positions, timeless


@settings(max_examples=150, deadline=None)
@given(random_machines())
def test_the_live_history_of_any_run_is_the_history_of_its_trace_and_journal(
    generated: RandomMachine,
) -> None:
    events = list(stream(generated.machine, (), generated.shell(), run_id="r"))
    started, last = events[0], events[-1]
    assert isinstance(started, RunStarted) and isinstance(last, Finished | Failed | AwaitingOutcome)
    result = last.result
    assert result == asyncio.run(arun(generated.machine, (), generated.shell()))
    snapshot = result.unwrap() if isinstance(result, Success) else result.failure().snapshot  # type: ignore[attr-defined]
    assert history(events) == [timeless(e) for e in history_of(started, snapshot, redact_credentials)]
    assert positions(events) == list(range(len(positions(events))))
    assert last.position == len(positions(events))
    assert isinstance(last, Failed) == (not isinstance(result, Success))
