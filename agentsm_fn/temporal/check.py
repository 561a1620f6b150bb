"""Before deploying a changed machine: which open runs on Temporal would it break?

Temporal replays a run's history on whichever worker picks it up next, so a worker
with a changed machine must fold every open run exactly as the old one did. The
engine already knows how to tell: :func:`~agentsm_fn.core.engine.replay` folds a
run's journal from its start and stops with ``ReplayDiverged`` at the first step
where the machine asks for something else. :func:`check_open_runs` applies it to
every open run of a machine: the start comes from the run's history, the journal
from the run itself (a query the deployed workers answer), and the verdict is the
durable store's ``RunCheck`` (the same check for runs in a store): the run, whether
its machine changed, and the first step that differs.

A worker refuses a run whose machine fingerprint differs from its own (the workflow
task fails and is retried, so nothing is lost) unless the old fingerprint is listed
in ``TemporalMachine.compatible``: list it once the check has said every open run
replays.
"""

from __future__ import annotations

import enum
from typing import TypeVar

import attrs
from returns.result import Failure
from temporalio.client import Client

from agentsm_fn.core.engine import replay
from agentsm_fn.core.failures import ReplayDiverged
from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.operations.check import RunCheck
from agentsm_fn.temporal.machines import TemporalMachine, WorkflowStart, as_temporal

__all__ = ["check_open_runs", "check_run"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def check_run(
    machine: Machine[StateT, EventT, MemoryT],
    run_id: str,
    start: WorkflowStart[StateT, MemoryT],
    now: Snapshot[StateT, MemoryT],
) -> RunCheck:
    """Replay the run that went from ``start`` to ``now`` against ``machine``; pure.

    The verdict is the durable store's :class:`~agentsm_fn.durable.operations.check.RunCheck`: the same
    question asked of a run that Temporal holds instead of a store.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> from agentsm_fn import begin
        >>> first = begin(REACT_MACHINE, AgentMemory.new("t"))
        >>> check_run(REACT_MACHINE, "r1", WorkflowStart(snapshot=first), first).describe()
        'r1 (running): ok, replays as it ran'
    """
    state = now.state.name
    status = "waiting" if now.status is Status.AWAITING else "running"
    changed = bool(start.fingerprint) and start.fingerprint != machine_fingerprint(machine)
    verdict = RunCheck(run_id=run_id, status=status, changed=changed, ok=True)
    if state not in machine.states.__members__:
        detail = f"it waits in state {state}, which the machine no longer has"
        return attrs.evolve(verdict, ok=False, step=now.steps, detail=detail)
    replayed = replay(machine, start.snapshot, now.journal)
    if isinstance(replayed, Failure):
        failed = replayed.failure()
        reason = failed.reason
        detail = reason.message if isinstance(reason, ReplayDiverged) else reason.describe()
        return attrs.evolve(verdict, ok=False, step=failed.snapshot.steps + 1, detail=detail)
    snap = replayed.unwrap()
    if snap.state.name != state or snap.steps != now.steps or snap.status is not now.status:
        detail = f"it waits in {state} after {now.steps} steps; replay now reaches {snap.state.name}"
        return attrs.evolve(verdict, ok=False, step=min(snap.steps, now.steps) + 1, detail=detail)
    return verdict


async def check_open_runs(
    client: Client, machine: Machine[StateT, EventT, MemoryT] | TemporalMachine[StateT, EventT, MemoryT]
) -> tuple[RunCheck, ...]:
    """One verdict per open run of the machine's workflow type, against ``machine`` as it is now.

    Needs the workers now deployed (they answer the query for each run's journal).
    """
    spec = as_temporal(machine)
    checks: list[RunCheck] = []
    query = f"WorkflowType = '{spec.name}' AND ExecutionStatus = 'Running'"
    async for execution in client.list_workflows(query):
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        history = await handle.fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        (start,) = await client.data_converter.decode(started.input.payloads)
        now = await handle.query("snapshot")
        if not isinstance(start, WorkflowStart) or not isinstance(now, Snapshot):
            detail = "its start or its current snapshot could not be read"
            checks.append(
                RunCheck(run_id=execution.id, status="running", changed=False, ok=False, detail=detail)
            )
            continue
        checks.append(check_run(spec.machine, execution.id, start, now))
    return tuple(sorted(checks, key=lambda check: check.run_id))
