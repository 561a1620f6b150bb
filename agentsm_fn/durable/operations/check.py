"""Checking a changed machine against stored runs, before deploying it.

:func:`check_runs` replays every unfinished stored run of a machine against the
machine as it is now (no effect is performed) and gives one :class:`RunCheck` per run:
it replays as it ran (``ok``), or it diverges (the first differing step and what
differs), or it waits in a state the machine no longer has. A run whose fingerprint
differs but that replays cleanly is safe to resume with ``allow_changed=True``; the
runner never resumes a changed machine's run without that.
"""

from __future__ import annotations

import enum
from typing import TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable.errors import CodecFailure, Diverged, DurableError, StoreFailure
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

    Example:
        >>> RunCheck(run_id="r1", status="waiting", changed=True, ok=False, step=4,
        ...         detail="the machine asks for Refund; the journal has Charge").describe()[:96] + "..."
        'r1 (waiting, machine changed): DIVERGES at step 4: the machine asks for Refund; the journal has...'
        >>> RunCheck(run_id="r2", status="waiting", changed=False, ok=False, unreadable=True,
        ...         detail="run r2, journal[1].outcome: corrupt").describe()
        'r2 (waiting): UNREADABLE: run r2, journal[1].outcome: corrupt'
    """

    run_id: str
    status: str
    changed: bool
    ok: bool
    step: int = -1
    detail: str = ""
    unreadable: bool = False

    def describe(self) -> str:
        """One line for reports."""
        head = f"{self.run_id} ({self.status}{', machine changed' if self.changed else ''})"
        if self.ok:
            return f"{head}: ok, replays as it ran"
        if self.unreadable:
            return f"{head}: UNREADABLE: {self.detail}"
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


def check_runs(
    store: RunStore, machine: Machine[StateT, EventT, MemoryT], name: str
) -> Result[tuple[RunCheck, ...], StoreFailure]:
    """Replay every unfinished run stored under ``name`` against ``machine``; one verdict each.

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> check_runs(store, REACT_MACHINE, "app:AGENT").unwrap()
        ()
        >>> store.close()
    """
    records = store.runs(unfinished_only=True)
    if isinstance(records, Failure):
        return records
    current = machine_fingerprint(machine)
    return Success(tuple(_verdict(store, machine, r, current) for r in records.unwrap() if r.machine == name))
