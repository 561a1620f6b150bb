"""Writing recordings: of a run held in memory, or of a run in a store (``agentsm-runs record RUN``).

Either way the run's inputs (its clock readings and outcomes) are folded once more through
the machine that ran it, with no IO, to keep what the journal itself does not: each request
and each row. A stored run that does not replay against the machine given is refused
(:class:`~agentsm_fn.durable.Diverged`), so a recording always replays against the code it
was made with.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any, TypeVar

from returns.result import Failure, Result

from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable import CodecFailure, Diverged, Durable, DurableError, JournalRow, RunStore, from_bytes
from agentsm_fn.regression._capture import Answer, Input, capture
from agentsm_fn.regression.values import Recording

__all__ = ["record_run", "record_stored"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def record_run(
    machine: Machine[StateT, EventT, MemoryT],
    start: Snapshot[StateT, MemoryT],
    stopped: Snapshot[StateT, MemoryT],
    name: str,
    requests: bool = True,
) -> Result[Recording, CodecFailure | Diverged]:
    """The recording of a run of ``machine`` that began at ``start`` and stopped at ``stopped``.

    ``name`` is the ``module:attribute`` the machine is found at (the recording replays against
    it by default). ``requests=False`` leaves the requests out (a smaller file; a divergence then
    shows their summaries and digests only).

    Example:
        >>> import enum
        >>> from agentsm_fn.core import begin, define_machine, emit
        >>> from agentsm_fn.shell import Shell, run
        >>> class S(enum.Enum):
        ...     A = 1
        ...     Z = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.Z},
        ...                    table={(S.A, E.GO): S.Z}, handlers={S.A: lambda n: emit(E.GO, n + 1)})
        >>> start = begin(m, 1)
        >>> rec = record_run(m, start, run(m, start, Shell()).unwrap(), "app:M").unwrap()
        >>> rec.rows, rec.end.status, rec.end.memory
        (('A -GO-> Z',), 'finished', '2')
    """
    first = len(start.journal)

    def inputs() -> Iterator[Input]:
        for index in range(first, len(stopped.journal)):
            entry = stopped.journal[index]
            yield entry.at if entry.is_tick else Answer(outcome=entry.outcome, at=entry.at)

    clean: Snapshot[StateT, MemoryT] = Snapshot(
        state=start.state,
        memory=start.memory,
        status=start.status,
        pending=start.pending,
        steps=start.steps,
    )
    return capture(machine, name, clean, inputs(), requests=requests)


def record_stored(
    store: RunStore,
    target: Durable[StateT, EventT, MemoryT] | Machine[StateT, EventT, MemoryT],
    run_id: str,
    requests: bool = True,
    name: str | None = None,
) -> Result[Recording, DurableError]:
    """The recording of stored run ``run_id``, replayed against ``target`` (the machine that ran it).

    ``name`` is the machine's ``module:attribute`` in the recording (default: the name the run
    was stored under).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> record_stored(store, REACT_MACHINE, "no-such-run").failure().describe()
        'no stored run no-such-run'
        >>> store.close()
    """
    machine = target.machine if isinstance(target, Durable) else target
    record = store.get(run_id)
    if isinstance(record, Failure):
        return record
    initial = store.initial_memory(run_id)
    if isinstance(initial, Failure):
        return initial
    begun = store.start(run_id)
    if isinstance(begun, Failure):
        return begun
    rows = store.journal(run_id)
    if isinstance(rows, Failure):
        return rows
    tail = store.tail(run_id)
    if isinstance(tail, Failure):
        return tail
    memory = from_bytes(initial.unwrap(), object)
    if isinstance(memory, Failure):
        return Failure(memory.failure().within(run_id, "memory"))
    state_name, steps = begun.unwrap()
    state = machine.initial if not state_name else machine.states.__members__.get(state_name)
    if state is None:
        detail = f"the run starts in state {state_name}, which this machine no longer has"
        return Failure(Diverged(run_id=run_id, seq=0, step=steps + 1, detail=detail))
    status = Status.FINISHED if state in machine.terminals else Status.READY
    start: Snapshot[Any, Any] = Snapshot(state=state, memory=memory.unwrap(), status=status, steps=steps)
    decoded = _inputs(run_id, rows.unwrap(), tail.unwrap())
    if isinstance(decoded, CodecFailure):
        return Failure(decoded)
    found = capture(machine, name or record.unwrap().machine, start, decoded, run_id, requests)
    return found.alt(
        lambda failure: (
            failure.within(run_id, failure.column) if isinstance(failure, CodecFailure) else failure
        )
    )


def _inputs(run_id: str, rows: tuple[JournalRow, ...], tail: tuple[float, ...]) -> list[Input] | CodecFailure:
    out: list[Input] = []
    for row in rows:
        out.extend(row.ticks)
        if row.outcome is None:  # the effect the run waits for (or was performing when it stopped)
            continue
        outcome = from_bytes(row.outcome, object)
        if isinstance(outcome, Failure):
            failure: CodecFailure = outcome.failure()
            return failure.within(run_id, f"journal[{row.seq}].outcome")
        out.append(Answer(outcome=outcome.unwrap(), at=row.at or 0.0, digest=row.digest))
    out.extend(tail)
    return out
