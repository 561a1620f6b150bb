"""The one workflow that runs any registered machine: the engine's fold, effects as activities.

The workflow type is the machine's name (a dynamic workflow looks the machine up
by task queue and type). It folds the machine with the engine's pure ``drive``,
reading the clock from workflow time, and does no IO itself: each effect the fold
asks for becomes an activity named after the effect's type (or, for an awaited
effect, waits for ``TemporalRun.answer``; a child run starts child workflows, see
:mod:`agentsm_fn.temporal.children`). Temporal's event history
plays the journal's part: on replay every activity returns its recorded outcome.

What reaches the fold when an activity does not return an outcome
(``EffectFailure``, routed by the engine like any outcome):

* the performer raised on its last allowed attempt: ``RAISED``, detail ``"Type: message"``;
* the attempt ran past its timeout, or nobody started it in time: ``TIMED_OUT``;
* the worker stopped heartbeating (it died) and the effect is not retry-safe:
  ``UNKNOWN`` (a retry-safe one is tried again, up to its attempts, then ``TIMED_OUT``).

A run continues as new (see ``TemporalMachine``) from its AWAITING snapshot with an
empty journal: each run of the chain journals its own effects, and the final
snapshot's journal replays from the start of the last run.

A missing or suspending performer is a configuration error: the run ends with
``EffectFailed`` and its AWAITING snapshot, as under the local shell. A run that ends
in a failure fails the workflow with an ``ApplicationError`` of type ``RunFailed``
whose details hold the ``RunFailed`` value; a cancelled workflow cancels its activity.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Sequence
from typing import Final

import attrs
from returns.result import Failure, Result, Success
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    CancelledError,
)

from agentsm_fn.core.driver import SUSPEND, OnRow, drive
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.core.failures import EffectFailed, RunFailed
from agentsm_fn.core.journal import Journal
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.teams.values import Children, ChildRun
from agentsm_fn.temporal.activity import Parked, failure_of
from agentsm_fn.temporal.children import run_children
from agentsm_fn.temporal.machines import TemporalMachine, WorkflowStart, observer_for, registered
from agentsm_fn.temporal.options import activity_options, options_for
from agentsm_fn.temporal.run_trace import RunTrace

__all__ = ["RUN_FAILED", "MachineMismatch", "MachineWorkflow", "PendingEffect"]

RUN_FAILED: Final = "RunFailed"
"""The ``ApplicationError`` type of a run that ended in a failure (details: the ``RunFailed``)."""

_Fold = Result[Snapshot[enum.Enum, object], RunFailed[enum.Enum, object]]


class MachineMismatch(RuntimeError):
    """The worker's machine is not the one the run started with (the workflow task fails and retries)."""


@attrs.frozen(kw_only=True)
class PendingEffect:
    """The effect a run waits on (query ``pending``): its sequence number and the effect."""

    seq: int
    effect: Effect[object]
    awaited: bool


class _LiveFold:
    """The engine's fold, kept running between effects; a snapshot is built only when asked for.

    ``effect`` is the effect the fold waits on (None once it ended, with ``ended`` its result).
    """

    def __init__(
        self,
        machine: Machine[enum.Enum, enum.Enum, object],
        snapshot: Snapshot[enum.Enum, object],
        clock: Callable[[], float],
        on_row: OnRow | None = None,
    ) -> None:
        self.machine, self.clock, self.on_row = machine, clock, on_row
        self.ended: _Fold | None = None
        self.fold = drive(machine, snapshot, clock, on_row=on_row)
        self.effect: Effect[object] | None = self._go(None, first=True)

    def _go(self, outcome: object, *, first: bool = False) -> Effect[object] | None:
        try:
            return next(self.fold) if first else self.fold.send(outcome)
        except StopIteration as stop:
            self.ended = stop.value
            return None

    def deliver(self, outcome: object) -> None:
        """Hand the fold the outcome of its effect; it runs on to its next effect or its end."""
        self.effect = self._go(outcome)

    def snapshot(self) -> Snapshot[enum.Enum, object]:
        """The run as it is now: its end, or the AWAITING snapshot at the effect it waits on.

        Taking it stops the fold (SUSPEND) and starts it again from that snapshot: the same
        fold, waiting on the same effect (a drive from an AWAITING snapshot reads no clock).
        """
        if self.ended is not None:
            return self.ended.unwrap() if isinstance(self.ended, Success) else self.ended.failure().snapshot
        try:
            self.fold.send(SUSPEND)
        except StopIteration as stop:
            parked: _Fold = stop.value
        else:  # pragma: no cover - drive always stops after SUSPEND
            raise AssertionError("drive did not stop after SUSPEND")
        snapshot = parked.unwrap()
        self.fold = drive(self.machine, snapshot, self.clock, on_row=self.on_row)
        next(self.fold)
        return snapshot


@workflow.defn(dynamic=True)
class MachineWorkflow:
    """Runs the registered machine named by the workflow type (see the module docstring)."""

    def __init__(self) -> None:
        self._live: _LiveFold | None = None
        self._pending: PendingEffect | None = None
        self._answer: list[object] = []

    @workflow.query
    def snapshot(self) -> Snapshot[enum.Enum, object] | None:
        """The run as it is now (None before its first step)."""
        return None if self._live is None else self._live.snapshot()

    @workflow.query
    def pending(self) -> PendingEffect | None:
        """The effect the run waits on, if any."""
        return self._pending

    @workflow.update
    def answer(self, seq: int, outcome: object) -> int:
        """Deliver the outcome of the awaited effect number ``seq``; returns ``seq``."""
        self._check_answer(seq, outcome)
        self._answer.append(outcome)
        return seq

    @answer.validator
    def _check_answer(self, seq: int, outcome: object) -> None:
        pending = self._pending
        if pending is None or not pending.awaited or self._answer:
            raise ApplicationError("the run is not waiting for an answer", type="NotAwaiting")
        if seq != pending.seq:
            raise ApplicationError(f"the run waits for effect {pending.seq}, not {seq}", type="NotAwaiting")
        if not pending.effect.accepts(outcome):
            message = f"{describe_effect(pending.effect)} does not accept a {type(outcome).__qualname__}"
            raise ApplicationError(message, type="OutcomeRejected")

    @workflow.run
    async def run(self, args: Sequence[RawValue]) -> Snapshot[enum.Enum, object]:
        """Fold the machine from the start in ``args[0]`` (a :class:`WorkflowStart`) to its end."""
        info = workflow.info()
        spec = registered(info.task_queue, info.workflow_type)
        if spec is None:
            raise MachineMismatch(
                f"no machine {info.workflow_type!r} is registered on {info.task_queue!r} here"
            )
        start = workflow.payload_converter().from_payload(args[0].payload)
        if not isinstance(start, WorkflowStart):
            raise ApplicationError(
                "workflow input is not a WorkflowStart", type="BadInput", non_retryable=True
            )
        if not spec.accepts_fingerprint(start.fingerprint):
            raise MachineMismatch(
                f"run {info.workflow_id} started on machine {spec.name} {start.fingerprint}, "
                f"this worker has {spec.fingerprint}: check open runs (check_open_runs) before deploying"
            )
        return await self._fold(spec, start)

    async def _fold(
        self, spec: TemporalMachine[enum.Enum, enum.Enum, object], start: WorkflowStart[enum.Enum, object]
    ) -> Snapshot[enum.Enum, object]:
        seq = start.seq

        def clock() -> float:
            return workflow.now().timestamp()

        info = workflow.info()
        started_at = info.get_current_history_size()  # this run's start: its input, mostly
        observer = observer_for(info.task_queue, info.workflow_type)
        traced = RunTrace(observer, spec.machine, start.snapshot)
        live = self._live = _LiveFold(spec.machine, start.snapshot, clock, traced.on_row)
        try:
            while (effect := live.effect) is not None:
                if seq > start.seq and self._should_continue(spec, seq - start.seq, started_at):
                    await workflow.wait_condition(workflow.all_handlers_finished)
                    # The history so far is the journal of what came before; the next run starts clean.
                    fresh = attrs.evolve(live.snapshot(), journal=Journal())
                    traced.ended(Success(fresh), continued=True)
                    with traced.current(unless_inside=True):  # same trace
                        workflow.continue_as_new(
                            WorkflowStart(snapshot=fresh, seq=seq, fingerprint=spec.fingerprint)
                        )
                outcome = await self._obtain(spec, effect, seq, traced)
                if isinstance(outcome, Parked):
                    snapshot = live.snapshot()
                    reason = EffectFailed(snapshot.state, describe_effect(effect), outcome.problem)
                    live.ended = Failure(RunFailed(reason, snapshot))
                    break
                seq += 1
                live.deliver(outcome)
        except asyncio.CancelledError:
            if traced.watching is not None:  # the snapshot is taken for the span only
                traced.ended(Success(live.snapshot()), cancelled=True)
            raise
        ended = live.ended
        assert ended is not None  # the loop ends when the fold does, or sets ``ended`` itself
        traced.ended(ended)
        if isinstance(ended, Failure):
            failed = ended.failure()
            raise ApplicationError(failed.describe(), failed, type=RUN_FAILED, non_retryable=True)
        return ended.unwrap()

    @staticmethod
    def _should_continue(
        spec: TemporalMachine[enum.Enum, enum.Enum, object], performed: int, started_at: int
    ) -> bool:
        """Whether to continue as new: after ``continue_after`` effects, or when Temporal suggests it.

        Also past ``history_bytes``, once this run at least doubled its history: a run whose own
        start is near the limit would otherwise continue after every effect, resending its snapshot.
        """
        info = workflow.info()
        size = info.get_current_history_size()
        return (
            performed >= spec.continue_after
            or (size >= spec.history_bytes and size >= 2 * started_at)
            or info.is_continue_as_new_suggested()
        )

    async def _obtain(
        self,
        spec: TemporalMachine[enum.Enum, enum.Enum, object],
        effect: Effect[object],
        seq: int,
        traced: RunTrace,
    ) -> object:
        target = effect.underlying()
        awaited = spec.is_awaited(type(target))
        self._pending = PendingEffect(seq=seq, effect=effect, awaited=awaited)
        try:
            if isinstance(target, ChildRun | Children):  # child workflows, started from here
                with traced.current():  # their runs' spans nest under this run's
                    return await run_children(target, seq)
            if awaited:
                await workflow.wait_condition(lambda: bool(self._answer))
                return self._answer.pop()
            options = options_for(type(target), spec.options, spec.default)
            retry_safe = bool(getattr(target, "retry_safe", False))
            try:
                settings = activity_options(options, retry_safe)
                with traced.current():  # its context goes along
                    handle = workflow.start_activity(
                        type(target).__name__,
                        args=[target, seq],
                        start_to_close_timeout=settings.start_to_close,
                        heartbeat_timeout=settings.heartbeat,
                        schedule_to_close_timeout=settings.schedule_to_close,
                        retry_policy=settings.retry_policy,
                        summary=describe_effect(target)[:200],
                    )
                return await handle
            except ActivityError as error:
                if isinstance(error.cause, CancelledError):
                    raise asyncio.CancelledError from error
                return failure_of(error, effect, retry_safe)
        finally:
            self._pending = None
