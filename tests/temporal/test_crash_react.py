"""The ReAct agent's worker is SIGKILLed in the middle of a slow tool; a second worker takes over.

Run ``L`` is killed in ``lookup`` (retry-safe): the second worker performs it again with
the same key, and the run ends with the memory of an uninterrupted run. Run ``B`` is
killed in ``book`` (not retry-safe): it was performed once and never again; the agent
sees an ``EffectFailure`` (outcome unknown) as that tool's observation and goes on.
"""

from __future__ import annotations

import asyncio
import collections
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from agentsm_fn.temporal import start_run
from tests.temporal.helpers import Workers, queue, wait_for
from tests.temporal.react_worker_process import agent, spec


@pytest.fixture
def workers(temporal_target: str, tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(temporal_target, queue(), tmp_path, module="tests.temporal.react_worker_process")
    yield pool
    pool.stop()


async def test_a_second_worker_finishes_react_runs_killed_in_their_tools(
    client: Client, workers: Workers
) -> None:
    directory, task_queue = workers.directory, workers.task_queue
    looked, booked = f"L-{task_queue}", f"B-{task_queue}"
    slow = (f"lookup-{looked}", f"book-{booked}")
    first = workers.start(slow)
    machine, reference_agent = spec(directory), agent(directory)
    runs = {
        run_id: await start_run(client, machine, reference_agent.memory, run_id=run_id, task_queue=task_queue)
        for run_id in (looked, booked)
    }
    wait_for([directory / f"started-{name}" for name in slow], first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    workers.start()
    async with asyncio.timeout(120):  # a guard against a hang, not a timing assertion
        results = {run_id: (await run.result()).unwrap() for run_id, run in runs.items()}

    calls = collections.Counter((directory / "calls.log").read_text().splitlines())
    assert calls[f"lookup {looked}:1"] == 2  # killed once, performed again with the same key
    assert calls[f"book {looked}:3"] == 1
    assert calls[f"lookup {booked}:1"] == 1
    assert calls[f"book {booked}:3"] == 1  # not retry-safe: never performed again
    uninterrupted = reference_agent.run().unwrap()
    assert results[looked].memory == uninterrupted.memory
    observations = [entry.observation for entry in results[booked].memory.history]
    assert observations[0] == uninterrupted.memory.history[0].observation
    assert observations[1].startswith("ERROR: EffectFailure: outcome unknown")
