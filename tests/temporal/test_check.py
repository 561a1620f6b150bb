"""A changed machine is checked against the open runs on Temporal before it is deployed.

Urgent tickets wait for a supervisor; the changed table sends them to an agent. The
check names exactly the urgent runs (with the step where they part), says the
others replay; a worker with the changed machine refuses every old run until their
fingerprint is declared compatible, and then carries on the ones the check passed.
"""

from __future__ import annotations

import pytest
from temporalio.client import Client, WorkflowQueryFailedError

from agentsm_fn import Machine
from agentsm_fn.durable import machine_fingerprint
from agentsm_fn.shell import Performers
from agentsm_fn.temporal import (
    TemporalMachine,
    TemporalRun,
    check_open_runs,
    machine_worker,
    start_run,
)
from tests.temporal.helpers import queue, wait_for_pending
from tests.temporal.machines import (
    TICKETS,
    TICKETS_URGENT_TO_AGENTS,
    AskAgent,
    AskSupervisor,
    TEv,
    Ticket,
    TSt,
)

AWAITED = (AskAgent, AskSupervisor)


def tickets(
    machine: Machine[TSt, TEv, Ticket] = TICKETS, compatible: frozenset[str] = frozenset()
) -> TemporalMachine[TSt, TEv, Ticket]:
    return TemporalMachine(machine=machine, awaited=AWAITED, compatible=compatible)


async def test_the_check_names_the_open_runs_a_changed_table_breaks(client: Client) -> None:
    task_queue, old = queue(), tickets()
    runs: dict[str, TemporalRun[TSt, Ticket]] = {}
    async with machine_worker(client, task_queue, [old], Performers(), passed_through=["tests"]):
        for name, urgent in (("n1", False), ("n2", False), ("u1", True), ("u2", True)):
            run_id = f"{name}-{task_queue}"
            runs[name] = await start_run(
                client, old, Ticket(urgent=urgent), run_id=run_id, task_queue=task_queue
            )
            await wait_for_pending(runs[name])
        ours = {f"{name}-{task_queue}" for name in runs}
        unchanged = [c for c in await check_open_runs(client, old) if c.run_id in ours]
        changed = [
            c for c in await check_open_runs(client, tickets(TICKETS_URGENT_TO_AGENTS)) if c.run_id in ours
        ]
        for run in runs.values():
            await run.answer("done")
    assert [c.ok for c in unchanged] == [True] * 4
    verdicts = {c.run_id.split("-")[0]: c for c in changed}
    assert [name for name, c in sorted(verdicts.items()) if not c.ok] == ["u1", "u2"]
    assert verdicts["u1"].describe() == (
        f"u1-{task_queue} (waiting, machine changed): DIVERGES at step 2: "
        "it waits in WAIT_MANAGER after 1 steps; replay now reaches WAIT_AGENT"
    )
    assert verdicts["n1"].describe() == f"n1-{task_queue} (waiting, machine changed): ok, replays as it ran"


async def test_a_worker_with_a_changed_machine_refuses_old_runs_until_declared_compatible(
    client: Client,
) -> None:
    task_queue, old = queue(), tickets()
    async with machine_worker(client, task_queue, [old], Performers(), passed_through=["tests"]):
        run = await start_run(
            client, old, Ticket(urgent=False), run_id=f"n-{task_queue}", task_queue=task_queue
        )
        await wait_for_pending(run)
    new = tickets(TICKETS_URGENT_TO_AGENTS)
    async with machine_worker(client, task_queue, [new], Performers(), passed_through=["tests"]):
        with pytest.raises(WorkflowQueryFailedError, match="check open runs"):
            await run.handle.query("snapshot")
    declared = tickets(TICKETS_URGENT_TO_AGENTS, compatible=frozenset({machine_fingerprint(TICKETS)}))
    async with machine_worker(client, task_queue, [declared], Performers(), passed_through=["tests"]):
        assert (await run.answer("done")).unwrap() == 0
        finished = (await run.result()).unwrap()
    assert finished.state is TSt.CLOSED and finished.memory.answer == "done"
