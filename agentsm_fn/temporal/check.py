"""Before deploying a changed machine: which open runs on Temporal would it break?

Temporal replays a run's history on whichever worker picks it up next, so a worker
with a changed machine must fold every open run exactly as the old one did. The
engine already knows how to tell: :func:`~agentsm_fn.core.engine.replay` folds a
run's journal from its start and stops with ``ReplayDiverged`` at the first step
where the machine asks for something else. :func:`check_open_runs` applies it to
every open run of a machine: the start comes from the run's history, the journal
from the run itself (a query the deployed workers answer), and the verdict names
the run, the state it waits in, and the first step that differs.

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
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.temporal.machines import TemporalMachine, WorkflowStart, as_temporal

__all__ = ["OpenRunCheck", "check_open_runs", "check_run"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class OpenRunCheck:
    """What replaying one open run against the changed machine showed.

    Example:
        >>> OpenRunCheck(run_id="t1", state="WAIT_MANAGER", ok=False, step=2, detail="asks Y").describe()
        't1 (waits in WAIT_MANAGER): DIVERGES at step 2: asks Y'
    """

    run_id: str
    state: str
    ok: bool
    step: int = -1
    detail: str = ""

    def describe(self) -> str:
        """One line for a deployment report."""
        head = f"{self.run_id} (waits in {self.state})"
        if self.ok:
            return f"{head}: ok, replays as it ran"
        where = f" at step {self.step}" if self.step >= 0 else ""
        return f"{head}: DIVERGES{where}: {self.detail}"


def check_run(
    machine: Machine[StateT, EventT, MemoryT],
    run_id: str,
    start: Snapshot[StateT, MemoryT],
    now: Snapshot[StateT, MemoryT],
) -> OpenRunCheck:
    """Replay the run that went from ``start`` to ``now`` against ``machine``; pure.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> from agentsm_fn import begin
        >>> start = begin(REACT_MACHINE, AgentMemory.new("t"))
        >>> check_run(REACT_MACHINE, "r1", start, start).ok
        True
    """
    state = now.state.name
    if state not in machine.states.__members__:
        detail = f"it waits in state {state}, which the machine no longer has"
        return OpenRunCheck(run_id=run_id, state=state, ok=False, step=now.steps, detail=detail)
    replayed = replay(machine, start, now.journal)
    if isinstance(replayed, Failure):
        failed = replayed.failure()
        reason = failed.reason
        detail = reason.message if isinstance(reason, ReplayDiverged) else reason.describe()
        step = failed.snapshot.steps + 1
        return OpenRunCheck(run_id=run_id, state=state, ok=False, step=step, detail=detail)
    snap = replayed.unwrap()
    if snap.state.name != state or snap.steps != now.steps or snap.status is not now.status:
        detail = f"it waits in {state} after {now.steps} steps; replay now reaches {snap.state.name}"
        step = min(snap.steps, now.steps) + 1
        return OpenRunCheck(run_id=run_id, state=state, ok=False, step=step, detail=detail)
    return OpenRunCheck(run_id=run_id, state=state, ok=True)


async def check_open_runs(
    client: Client, machine: Machine[StateT, EventT, MemoryT] | TemporalMachine[StateT, EventT, MemoryT]
) -> tuple[OpenRunCheck, ...]:
    """One verdict per open run of the machine's workflow type, against ``machine`` as it is now.

    Needs the workers now deployed (they answer the query for each run's journal).
    """
    spec = as_temporal(machine)
    checks: list[OpenRunCheck] = []
    query = f"WorkflowType = '{spec.name}' AND ExecutionStatus = 'Running'"
    async for execution in client.list_workflows(query):
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        history = await handle.fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        (start,) = await client.data_converter.decode(started.input.payloads)
        now = await handle.query("snapshot")
        if not isinstance(start, WorkflowStart) or not isinstance(now, Snapshot):
            detail = "its start or its current snapshot could not be read"
            checks.append(OpenRunCheck(run_id=execution.id, state="?", ok=False, detail=detail))
            continue
        checks.append(check_run(spec.machine, execution.id, start.snapshot, now))
    return tuple(sorted(checks, key=lambda check: check.run_id))
