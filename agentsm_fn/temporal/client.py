"""Starting runs on Temporal, answering them, reading them, and collecting their results.

Clients use a Temporal ``Client`` made with the project's data converter (:func:`connect`).
:func:`start_run` gives a :class:`TemporalRun`; its methods are values too: ``result()``
is the final snapshot, or a failure that says why the run stopped (the engine's
``RunFailed``, or :class:`RunCancelled`); ``answer(outcome)`` is the answered sequence
number or an :class:`AnswerRefused` (nothing awaited, an outcome of a wrong type, or
another answer came first).
"""

from __future__ import annotations

import enum
from typing import Generic, TypeAlias, TypeVar, cast

import attrs
from returns.result import Failure, Result, Success
from temporalio.client import (
    Client,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError, CancelledError
from temporalio.service import RPCError

from agentsm_fn.core.engine import begin
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import AnswerRefusal, AnswerRefused
from agentsm_fn.temporal.machines import TemporalMachine, WorkflowStart, as_temporal
from agentsm_fn.temporal.payloads import data_converter
from agentsm_fn.temporal.workflow import RUN_FAILED, MachineWorkflow, PendingEffect

__all__ = [
    "RunCancelled",
    "TemporalRun",
    "TemporalRunError",
    "connect",
    "start_run",
]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Handle: TypeAlias = WorkflowHandle[MachineWorkflow, Snapshot[enum.Enum, object]]


@attrs.frozen(kw_only=True)
class RunCancelled:
    """The workflow was cancelled (or terminated) before the run ended.

    Example:
        >>> RunCancelled(run_id="r1", detail="cancelled").describe()
        'run r1 stopped on Temporal: cancelled'
    """

    run_id: str
    detail: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"run {self.run_id} stopped on Temporal: {self.detail}"


TemporalRunError: TypeAlias = "RunFailed[StateT, MemoryT] | RunCancelled"
"""Why a run on Temporal did not reach a terminal state."""


@attrs.frozen
class TemporalRun(Generic[StateT, MemoryT]):
    """A run on Temporal: its workflow handle, typed by the machine's states and memory.

    Get one from :func:`start_run`, or for a run started elsewhere with :meth:`attach`.
    ``pending`` and ``snapshot`` are queries (a worker answers them); ``answer`` is an update.
    """

    handle: Handle

    @property
    def run_id(self) -> str:
        """The workflow id (the run id of its idempotency keys)."""
        return self.handle.id

    @classmethod
    def attach(
        cls,
        client: Client,
        machine: Machine[StateT, EventT, MemoryT] | TemporalMachine[StateT, EventT, MemoryT],
        run_id: str,
    ) -> TemporalRun[StateT, MemoryT]:
        """The run ``run_id`` of ``machine`` (started by this or another process)."""
        return cls(cast(Handle, client.get_workflow_handle(run_id)))

    async def result(self) -> Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT] | RunCancelled]:
        """Wait for the run to end: its final snapshot, or why it stopped."""
        try:
            finished: object = await self.handle.result()
        except WorkflowFailureError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError) and cause.type == RUN_FAILED and cause.details:
                failed = cause.details[0]
                if isinstance(failed, RunFailed):
                    return Failure(cast(RunFailed[StateT, MemoryT], failed))  # this run's machine made it
            detail = "cancelled" if isinstance(cause, CancelledError) else f"{type(cause).__name__}: {cause}"
            return Failure(RunCancelled(run_id=self.run_id, detail=detail))
        if not isinstance(finished, Snapshot):
            detail = f"unexpected result {type(finished).__name__}"
            return Failure(RunCancelled(run_id=self.run_id, detail=detail))
        return Success(cast(Snapshot[StateT, MemoryT], finished))  # this run's machine made it

    async def pending(self) -> PendingEffect | None:
        """The effect the run waits on now, if any."""
        found = await self.handle.query("pending")
        return found if isinstance(found, PendingEffect) else None

    async def snapshot(self) -> Snapshot[StateT, MemoryT] | None:
        """The run as it is now."""
        found = await self.handle.query("snapshot")
        return cast(Snapshot[StateT, MemoryT], found) if isinstance(found, Snapshot) else None

    async def answer(self, outcome: object) -> Result[int, AnswerRefused]:
        """Deliver ``outcome`` to the awaited effect the run waits on now (e.g. a human's decision)."""
        waiting = await self.pending()
        if waiting is None or not waiting.awaited:
            why, kind = "the run is not waiting for an answer", AnswerRefusal.NOTHING_WAITS
            return Failure(AnswerRefused(run_id=self.run_id, seq=-1, kind=kind, why=why))
        try:
            seq = await self.handle.execute_update("answer", args=[waiting.seq, outcome])
        except WorkflowUpdateFailedError as error:
            cause = error.cause
            why = cause.message if isinstance(cause, ApplicationError) else str(cause)
            wrong = isinstance(cause, ApplicationError) and cause.type == "OutcomeRejected"
            kind = AnswerRefusal.WRONG_TYPE if wrong else AnswerRefusal.NOTHING_WAITS
            return Failure(AnswerRefused(run_id=self.run_id, seq=waiting.seq, kind=kind, why=why))
        except RPCError as error:  # e.g. the run ended while the answer was on its way
            kind = AnswerRefusal.NOTHING_WAITS
            return Failure(AnswerRefused(run_id=self.run_id, seq=waiting.seq, kind=kind, why=error.message))
        return Success(cast(int, seq))

    async def cancel(self) -> None:
        """Ask Temporal to cancel the run (its activity in flight is cancelled too)."""
        await self.handle.cancel()


async def connect(target: str, namespace: str = "default", *, tracing: bool = False) -> Client:
    """A Temporal client at ``target`` (``host:port``) that encodes values with the project's codec.

    ``tracing``: runs started with it go on in the caller's trace (the current OpenTelemetry
    context travels in Temporal's headers; extra ``otel``; docs/temporal.md, "Traces").
    """
    plugins = []
    if tracing:
        from agentsm_fn.temporal.tracing import tracing_plugin  # noqa: PLC0415  # opt-in: imports OpenTelemetry

        plugins.append(tracing_plugin())
    return await Client.connect(target, namespace=namespace, data_converter=data_converter(), plugins=plugins)


async def start_run(
    client: Client,
    machine: Machine[StateT, EventT, MemoryT] | TemporalMachine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    *,
    run_id: str,
    task_queue: str,
) -> TemporalRun[StateT, MemoryT]:
    """Start a run of ``machine`` from a memory (or a stored snapshot) as workflow ``run_id``.

    The machine's fingerprint goes with it: a worker with a different machine refuses the run.
    """
    spec = as_temporal(machine)
    snapshot = start if isinstance(start, Snapshot) else begin(spec.machine, start)
    run_start = WorkflowStart(snapshot=snapshot, seq=0, fingerprint=spec.fingerprint)
    handle = await client.start_workflow(spec.name, run_start, id=run_id, task_queue=task_queue)
    return TemporalRun(cast(Handle, handle))  # started by type name: the SDK cannot know the result type
