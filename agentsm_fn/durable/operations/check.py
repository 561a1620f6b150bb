"""Checking a changed machine against stored runs, before deploying it.

:func:`check_runs` replays every unfinished stored run of a machine against the
machine as it is now (no effect is performed) and gives one :class:`RunCheck` per run:
it replays as it ran (``ok``), or it diverges (the first differing step and what
differs), or it waits in a state the machine no longer has. A run whose fingerprint
differs but that replays cleanly is safe to resume with ``allow_changed=True``; the
runner never resumes a changed machine's run without that.

Given the program's ``result`` (a :class:`~agentsm_fn.durable.Durable`'s, as ``agentsm-runs check``
passes it), it also replays every finished run that did not fail: one whose stored result no longer
reads as its class (the class changed, so the journal's reply no longer converts, or a stored
value no longer decodes) is reported with ``result_changed``, never passed in silence.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Status
from agentsm_fn.durable.errors import CodecFailure, CodecFailureKind, Diverged, DurableError, StoreFailure
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore

__all__ = ["RunCheck", "check_runs"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class RunCheck:
    """What replaying one stored run against the current machine showed.

    ``step`` is the first transition that differs (-1 when none does). ``unreadable``
    says the stored run itself could not be read (a corrupt or undecodable row, named in
    ``detail``): that is a problem of the store, not a divergence of the machine.
    ``result_changed`` says a finished run's result no longer reads as it was stored (its
    class changed since): ``detail`` says where the replay now stops, or what no longer decodes.

    Example:
        >>> RunCheck(run_id="r1", status="waiting", changed=True, ok=False, step=4,
        ...         detail="the machine asks for Refund; the journal has Charge").describe()[:96] + "..."
        'r1 (waiting, machine changed): DIVERGES at step 4: the machine asks for Refund; the journal has...'
        >>> RunCheck(run_id="r2", status="waiting", changed=False, ok=False, unreadable=True,
        ...         detail="run r2, journal[1].outcome: corrupt").describe()
        'r2 (waiting): UNREADABLE: run r2, journal[1].outcome: corrupt'
        >>> RunCheck(run_id="r3", status="finished", changed=True, ok=False, result_changed=True,
        ...         detail="the replay now stops in Correcting, not Done").describe()
        'r3 (finished, machine changed): RESULT CHANGED: the replay now stops in Correcting, not Done'
    """

    run_id: str
    status: str
    changed: bool
    ok: bool
    step: int = -1
    detail: str = ""
    unreadable: bool = False
    result_changed: bool = False

    def describe(self) -> str:
        """One line for reports."""
        head = f"{self.run_id} ({self.status}{', machine changed' if self.changed else ''})"
        if self.ok:
            return f"{head}: ok, replays as it ran"
        if self.unreadable:
            return f"{head}: UNREADABLE: {self.detail}"
        if self.result_changed:
            return f"{head}: RESULT CHANGED: {self.detail}"
        where = f" at step {self.step}" if self.step >= 0 else ""
        return f"{head}: DIVERGES{where}: {self.detail}"


def _verdict(
    store: RunStore, machine: Machine[StateT, EventT, MemoryT], record: RunRecord, current: str
) -> RunCheck:
    base = RunCheck(
        run_id=record.run_id, status=record.status.value, changed=record.fingerprint != current, ok=True
    )
    if record.state and record.state not in machine.states.__members__:
        detail = f"it stopped in state {record.state}, which the machine no longer has"
        return attrs.evolve(base, ok=False, step=record.steps, detail=detail)
    replayed = replay_stored(store, machine, record.run_id)
    if isinstance(replayed, Failure):
        error: DurableError = replayed.failure()
        step = error.step if isinstance(error, Diverged) else -1
        unreadable = isinstance(error, StoreFailure | CodecFailure)
        return attrs.evolve(base, ok=False, step=step, detail=error.describe(), unreadable=unreadable)
    snap = replayed.unwrap()
    if (
        record.status in (RunStatus.WAITING, RunStatus.FAILED)
        and record.state
        and snap.state.name != record.state
    ):
        detail = (
            f"it stopped in {record.state} after {record.steps} steps; replay now reaches {snap.state.name}"
        )
        return attrs.evolve(base, ok=False, step=min(snap.steps, record.steps) + 1, detail=detail)
    return base


def _result_verdict(
    store: RunStore,
    machine: Machine[StateT, EventT, MemoryT],
    record: RunRecord,
    current: str,
    result: Callable[[MemoryT], object],
) -> RunCheck:
    base = RunCheck(
        run_id=record.run_id, status=record.status.value, changed=record.fingerprint != current, ok=True
    )
    replayed = replay_stored(store, machine, record.run_id)
    if isinstance(replayed, Failure):
        error: DurableError = replayed.failure()
        if isinstance(error, Diverged):
            return attrs.evolve(base, ok=False, step=error.step, detail=error.describe())
        if isinstance(error, CodecFailure) and error.kind is not CodecFailureKind.CORRUPT:
            detail = f"its stored result no longer decodes: {error.describe()}"
            return attrs.evolve(base, ok=False, result_changed=True, detail=detail)
        return attrs.evolve(base, ok=False, unreadable=True, detail=error.describe())
    snap = replayed.unwrap()
    if snap.status is not Status.FINISHED or snap.state.name != record.state:
        detail = (
            f"its stored result no longer reads as its class: the replay of its journal now stops in "
            f"{snap.state.name} ({snap.status.value}), not {record.state}"
        )
        return attrs.evolve(base, ok=False, step=snap.steps, result_changed=True, detail=detail)
    if result(snap.memory) is None:
        detail = f"it finished in {record.state}, but its result now reads as None"
        return attrs.evolve(base, ok=False, result_changed=True, detail=detail)
    return base


def check_runs(
    store: RunStore,
    machine: Machine[StateT, EventT, MemoryT],
    name: str,
    result: Callable[[MemoryT], object] | None = None,
) -> Result[tuple[RunCheck, ...], StoreFailure]:
    """Replay every unfinished run stored under ``name`` against ``machine``; one verdict each.

    With ``result`` (the program's, e.g. :func:`~agentsm_fn.agents.react.agent_result`), every
    finished run that did not fail is replayed too, and its verdict says whether its result still
    reads (``result_changed`` when not).

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> check_runs(store, REACT_MACHINE, "app:AGENT").unwrap()
        ()
        >>> store.close()
    """
    records = store.runs(unfinished_only=result is None)
    if isinstance(records, Failure):
        return records
    current = machine_fingerprint(machine)
    mine = [r for r in records.unwrap() if r.machine == name]
    verdicts = [_verdict(store, machine, r, current) for r in mine if r.status.unfinished]
    if result is not None:
        done = [r for r in mine if r.status is RunStatus.FINISHED]
        verdicts += [_result_verdict(store, machine, r, current, result) for r in done]
    return Success(tuple(verdicts))
