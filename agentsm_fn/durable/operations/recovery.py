"""Recovery: find the stored runs no live process is running, and run each on from its journal.

:func:`recover` lists the unfinished runs of the given durable machines that can go on
here: RUNNING runs whose process died (same host) or whose lease expired, and READY runs
(answered, or let go). Each is resumed effect by effect: an outcome already committed is
never performed again; an effect that was in flight is performed again only if it is
retry-safe, otherwise its outcome is unknown and the machine decides. WAITING runs wait
for an answer (``approvals``), but a parent waiting on its children is settled first (children
a crash left unqueued are queued; a parent whose children all ended is answered, and goes on,
in a next pass); FAILED runs wait for their cause to be fixed (``Durable.resume``). A run of
a machine whose fingerprint changed is not resumed: its result is
:class:`~agentsm_fn.durable.errors.MachineChanged` (check it first).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Protocol, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import DurableError, StoreFailure
from agentsm_fn.durable.running.children import settle_waiting
from agentsm_fn.durable.running.children_up import staying
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.stores.protocol.owners import owner_holds
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore
from agentsm_fn.shell.clock import Clock, system_clock

__all__ = ["Recoverable", "Recovered", "recover"]

AnyStoredRun = StoredRun[enum.Enum, object]
"""A stored run of any machine: its state is some enum, its memory some value."""


class Recoverable(Protocol):
    """What :func:`recover` needs of a durable machine: its name, and resuming a run (any ``Durable``).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable import Durable
        >>> machines: list[Recoverable] = [Durable(name="app:AGENT", machine=REACT_MACHINE)]
        >>> machines[0].name
        'app:AGENT'
    """

    @property
    def name(self) -> str:
        """The ``module:attribute`` name runs are stored under."""
        ...

    def resume(
        self, store: RunStore, run_id: str, allow_changed: bool = False
    ) -> Result[object, DurableError]:
        """Continue the stored run ``run_id`` (``Durable.resume``)."""
        ...


@attrs.frozen(kw_only=True)
class Recovered:
    """One run :func:`recover` took up, and how it went."""

    run_id: str
    machine: str
    result: Result[AnyStoredRun, DurableError]


def recover(
    store: RunStore, durables: Iterable[Recoverable], clock: Clock = system_clock
) -> Result[tuple[Recovered, ...], StoreFailure]:
    """Resume every stored run of ``durables`` that no live process runs; one result per run.

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> recover(store, []).unwrap()
        ()
        >>> store.close()
    """
    by_name = {durable.name: durable for durable in durables}
    done: list[Recovered] = []
    while True:  # a pass may answer parents (their children ended): they go on in the next pass
        records = store.runs(unfinished_only=True)
        if isinstance(records, Failure):
            return records
        settled = settle_waiting(store, records.unwrap())
        taken = _pass(store, by_name, records.unwrap(), clock(), {r.run_id for r in done})
        done.extend(taken)
        if not taken and not settled:
            return Success(tuple(done))


def _pass(
    store: RunStore,
    by_name: dict[str, Recoverable],
    records: tuple[RunRecord, ...],
    now: float,
    seen: set[str],
) -> list[Recovered]:
    done: list[Recovered] = []
    for record in reversed(records):  # oldest first
        if record.run_id in seen:
            continue
        durable = by_name.get(record.machine)
        if durable is None or record.status not in (RunStatus.RUNNING, RunStatus.READY):
            continue
        if record.status is RunStatus.RUNNING and owner_holds(record.owner, record.lease_until, now):
            continue  # a live process runs it
        # Durable[S, E, M].resume gives a StoredRun[S, M]: frozen, so read as the wider
        # StoredRun[enum.Enum, object] it is (StoredRun's type parameters are invariant only
        # because attrs classes cannot declare them covariant).
        with staying():  # every run listed is resumed here: a child's end does not resume its parent too
            result = cast(Result[AnyStoredRun, DurableError], durable.resume(store, record.run_id))
        done.append(Recovered(run_id=record.run_id, machine=record.machine, result=result))
    return done
