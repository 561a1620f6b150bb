"""What a run waits for, down its tree of children, and answering it through that run, once.

A parent that waits on its children (a ``ChildRun`` or ``Children`` effect: an agent's tool that
is another agent, a handoff's receiving agent, ``delegate``, ``fan_out``) waits, in the end, for
whatever its waiting children wait for: a tool approval inside a child is what the parent waits
for too. :func:`pending_of` lists it so: a run's own pending effect, or, when it waits on
children, each waiting descendant's (its ``path`` names the runs between). :func:`answer_below`
answers one of them through the run asked about: the run answered must be that run or one of
its children, down the tree (else :attr:`~agentsm_fn.durable.errors.AnswerRefusal.NOT_BELOW`),
and the answer is the store's exactly-once :func:`~agentsm_fn.durable.operations.answers.answer`:
a second answer, through the parent or the child, is refused (``ANSWERED_ALREADY``), never
performed twice. The child is then READY; ``Durable.resume`` of the parent (or of the child)
runs the child here and goes on with the parent, up the chain
(:mod:`~agentsm_fn.durable.running.children_inline`).
"""

from __future__ import annotations

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import AnswerRefusal, AnswerRefused, DurableError
from agentsm_fn.durable.operations.answers import PendingAnswer, answer, waiting_on
from agentsm_fn.durable.running.children import children_store
from agentsm_fn.durable.stores.protocol.children import ChildStore
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore
from agentsm_fn.shell.clock import Clock, system_clock

__all__ = ["above", "answer_below", "path_below", "pending_of"]

DEEPEST = 64
"""How deep a tree of children is followed (child ids derive from their parents': no cycle)."""


def pending_of(store: RunStore, run_id: str) -> Result[tuple[PendingAnswer, ...], DurableError]:
    """What run ``run_id`` waits for: its own pending effect, or each waiting descendant's (see the module).

    Example:
        >>> from agentsm_fn.durable import NewRun, SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> store.enqueue(NewRun(run_id="r1", machine="app:M", fingerprint="f", memory=b"",
        ...                      created=0.0, owner="", lease_until=0.0)).unwrap()
        >>> pending_of(store, "r1").unwrap(), pending_of(store, "r9").failure().describe()
        ((), 'no stored run r9')
        >>> store.close()
    """
    record = store.get(run_id)
    if isinstance(record, Failure):
        return record
    return _below(store, children_store(store), record.unwrap(), ())


def _below(
    store: RunStore, keeps: ChildStore | None, record: RunRecord, path: tuple[str, ...]
) -> Result[tuple[PendingAnswer, ...], DurableError]:
    own = waiting_on(store, record)
    if isinstance(own, Failure):
        return own
    waiting = own.unwrap()
    if waiting is None:
        return Success(())
    deep = keeps is None or len(path) >= DEEPEST
    listed = Success(()) if keeps is None or deep else keeps.children_of(record.run_id, waiting.seq)
    if isinstance(listed, Failure):
        return listed
    group = listed.unwrap()
    if not group:  # it waits on an effect of its own
        return Success((attrs.evolve(waiting, path=path),))
    found: list[PendingAnswer] = []
    for child in group:
        if child.ended or child.status is not RunStatus.WAITING:
            continue
        row = store.get(child.run_id)
        if isinstance(row, Failure):
            return row
        below = _below(store, keeps, row.unwrap(), (*path, record.run_id))
        if isinstance(below, Failure):
            return below
        found.extend(below.unwrap())
    return Success(tuple(found))


def above(store: RunStore, run_id: str) -> Result[tuple[str, ...], DurableError]:
    """The runs above run ``run_id``, outermost first: its parent last (empty: it is nobody's child).

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> above(store, "r1").unwrap()
        ()
        >>> store.close()
    """
    keeps = children_store(store)
    found: list[str] = []
    current = run_id
    while keeps is not None and len(found) < DEEPEST:
        row = keeps.child(current)
        if isinstance(row, Failure):
            return row
        parent = row.unwrap()
        if parent is None:
            break
        current = parent.parent
        found.append(current)
    return Success(tuple(reversed(found)))


def path_below(store: RunStore, run_id: str, below: str) -> Result[tuple[str, ...] | None, DurableError]:
    """The runs from ``run_id`` down to ``below``'s parent if ``below`` is ``run_id`` or under it; else None.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> path_below(store, "r1", "r1").unwrap(), path_below(store, "r1", "r2").unwrap()
        ((), None)
        >>> store.close()
    """
    keeps = children_store(store)
    above: list[str] = []
    current = below
    while current != run_id:
        if keeps is None or len(above) >= DEEPEST:
            return Success(None)
        row = keeps.child(current)
        if isinstance(row, Failure):
            return row
        found = row.unwrap()
        if found is None:
            return Success(None)
        current = found.parent
        above.append(current)
    return Success(tuple(reversed(above)))


def answer_below(
    store: RunStore, run_id: str, below: str, seq: int, outcome: object, clock: Clock = system_clock
) -> Result[tuple[str, ...], DurableError]:
    """Answer effect ``seq`` of run ``below`` through run ``run_id`` (it, or a run under it), once.

    What is answered is as :func:`~agentsm_fn.durable.operations.answers.answer` answers it; the
    result is the path from ``run_id`` down to ``below``'s parent (empty: ``run_id``'s own effect).

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> answer_below(store, "r1", "r2", 3, True).failure().kind.name
        'NOT_BELOW'
        >>> store.close()
    """
    path = path_below(store, run_id, below)
    if isinstance(path, Failure):
        return path
    found = path.unwrap()
    if found is None:
        why = f"run {below} is not run {run_id} nor one of its children"
        return Failure(AnswerRefused(run_id=below, seq=seq, kind=AnswerRefusal.NOT_BELOW, why=why))
    return answer(store, below, seq, outcome, clock).map(lambda _: found)
