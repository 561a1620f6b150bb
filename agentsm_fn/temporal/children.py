"""Child runs on Temporal: a parent's ``ChildRun`` or ``Children`` effect as child workflows.

A child program is named ``module:attribute`` (its ``Durable``), as for a stored child run. A
worker serves the programs it is given (``machine_worker(..., programs=...)``): each program's
machine is registered as a workflow type (its machine's name), and the program is known here by
its name, for its ``result`` and ``failure``. The parent's workflow starts the child workflow
itself (no activity): its id derives from the parent's workflow id and the effect's sequence
number (:func:`~agentsm_fn.durable.running.run_ids.child_run_id`, the index added in a fan-out),
so a replayed parent finds its child in its history. The child's end comes back as a
:data:`~agentsm_fn.teams.ChildOutcome`: finished (its program's result), failed (the reason it
failed with, redacted) or cancelled.

A ``Children`` fan-out starts its child workflows ``limit`` at a time and gathers their outcomes
in the order of their memories; under ``CANCEL_REST`` a child that did not finish cancels the
running ones and the ones not started yet (each gives ``ChildCancelled``). Children are started
with the ``REQUEST_CANCEL`` parent close policy: cancelling the parent cancels them (and a
parent that ends otherwise asks any still running to stop).

A program this worker does not serve fails the workflow task (it retries, as for an unknown
machine): a failed outcome would not be in the history, and a replay on a worker that serves
the program would start the child and diverge.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Final

import attrs
from returns.result import Failure
from temporalio import workflow
from temporalio.exceptions import (
    ApplicationError,
    CancelledError,
    ChildWorkflowError,
    WorkflowAlreadyStartedError,
)
from temporalio.workflow import ParentClosePolicy

from agentsm_fn.core.engine import begin
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.running.child_programs import (
    AnyProgram,
    ended_outcome,
    failed_outcome,
    start_memory,
)
from agentsm_fn.durable.running.run_ids import child_run_id
from agentsm_fn.teams.values import (
    ChildCancelled,
    ChildFinished,
    ChildOutcome,
    Children,
    ChildRun,
    Gathered,
    GatherPolicy,
)
from agentsm_fn.temporal.machines import TemporalMachine, WorkflowStart, as_temporal, registered

__all__ = ["ProgramNotServed", "program_machines", "register_programs", "run_children"]

_PROGRAMS: Final[dict[tuple[str | None, str], AnyProgram]] = {}
"""(task queue, program name) -> the program, filled by this process's workers (None: replayers)."""


class ProgramNotServed(RuntimeError):
    """A parent asks for a child program this worker was not given (the workflow task fails and retries)."""


def program_machines(
    programs: Iterable[AnyProgram], machines: Iterable[TemporalMachine[Any, Any, Any]] = ()
) -> list[TemporalMachine[Any, Any, Any]]:
    """The programs' machines as workflow types, but for those ``machines`` already names."""
    named = {spec.name for spec in machines}
    return [as_temporal(program.machine) for program in programs if program.machine.name not in named]


def register_programs(task_queue: str | None, programs: Iterable[AnyProgram]) -> None:
    """Make ``programs`` known by name to the parents' workflows on ``task_queue`` in this process."""
    for program in programs:
        _PROGRAMS[(task_queue, program.name)] = program


def _program(name: str) -> AnyProgram:
    queue = workflow.info().task_queue
    found = _PROGRAMS.get((queue, name)) or _PROGRAMS.get((None, name))
    if found is None:
        raise ProgramNotServed(
            f"no child program {name!r} is served on {queue!r} here: machine_worker(programs=...)"
        )
    return found


def _parent_cancelled() -> bool:
    """Whether this task is being cancelled (the parent workflow is): its child's end is not an outcome."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


@attrs.define
class _Fan:
    """A fan-out's shared state: whether the rest are cancelled, and the children now running."""

    stopped: bool = False
    running: dict[int, workflow.ChildWorkflowHandle[object, object]] = attrs.Factory(dict)

    def stop(self) -> None:
        self.stopped = True
        for handle in self.running.values():
            handle.cancel()


async def _child(
    program_name: str, memory: object, run_id: str, fan: _Fan | None = None, index: int = 0
) -> ChildOutcome:
    """Run one child workflow of ``program_name`` from ``memory`` as ``run_id``; how it ended."""
    program = _program(program_name)
    spec = registered(workflow.info().task_queue, program.machine.name)
    fingerprint = spec.fingerprint if spec is not None else ""
    first = start_memory(program, memory)  # a StartTurn: the new turn the program's template makes
    if isinstance(first, Failure):
        return failed_outcome(program.name, run_id, first.failure())
    start = WorkflowStart(snapshot=begin(program.machine, first.unwrap()), fingerprint=fingerprint)
    try:
        handle: workflow.ChildWorkflowHandle[object, object] = await workflow.start_child_workflow(
            program.machine.name,
            start,
            id=run_id,
            parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
            static_summary=program.name[:200],
        )
    except WorkflowAlreadyStartedError as error:  # pragma: no cover - an id in use (a parent reset)
        return failed_outcome(program.name, run_id, str(error))
    if fan is not None:
        fan.running[index] = handle
        if fan.stopped:
            handle.cancel()
    try:
        ended = await handle
    except ChildWorkflowError as error:
        cause = error.cause
        if isinstance(cause, CancelledError):
            if _parent_cancelled():
                raise asyncio.CancelledError from error
            return ChildCancelled(run_id=run_id, program=program.name)
        reason = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
        return failed_outcome(program.name, run_id, reason)
    finally:
        if fan is not None:
            fan.running.pop(index, None)
    if not isinstance(ended, Snapshot):  # pragma: no cover - the machine workflow returns its snapshot
        return failed_outcome(program.name, run_id, f"unexpected result {type(ended).__name__}")
    return ended_outcome(program, run_id, ended)


async def _gather(effect: Children, seq: int) -> Gathered:
    parent, fan = workflow.info().workflow_id, _Fan()
    slots = asyncio.Semaphore(effect.limit)
    outcomes: list[ChildOutcome] = []

    async def one(index: int, memory: object) -> ChildOutcome:
        run_id = child_run_id(parent, seq, index)
        async with slots:
            if fan.stopped:
                return ChildCancelled(run_id=run_id, program=effect.program)
            outcome = await _child(effect.program, memory, run_id, fan, index)
        if effect.policy is GatherPolicy.CANCEL_REST and not isinstance(outcome, ChildFinished):
            fan.stop()
        return outcome

    outcomes = list(await asyncio.gather(*(one(i, m) for i, m in enumerate(effect.memories))))
    return Gathered(outcomes=tuple(outcomes))


async def run_children(effect: ChildRun | Children, seq: int) -> ChildOutcome | Gathered:
    """Perform a parent's child-run effect number ``seq`` in its workflow: the outcome the fold gets."""
    if isinstance(effect, Children):
        return await _gather(effect, seq)
    run_id = effect.run_id or child_run_id(workflow.info().workflow_id, seq)
    return await _child(effect.program, effect.memory, run_id)
