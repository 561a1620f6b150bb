"""Child runs with no workers: a caller that runs a team member runs the team on, down and up.

Down: ``Durable.start``/``resume`` and ``astart``/``aresume`` (unless ``inline=False``, as a
worker calls them: it leaves children to the workers) end with :func:`run_inline` /
:func:`arun_inline`: a parent that stopped to wait on its children (stored READY by
:mod:`agentsm_fn.durable.running.children`) runs each READY child here, then resumes the parent,
so a plain user gets the parent's end from one call. The sync calls run the children one after
the other; the async calls run a fan-out's READY children concurrently on asyncio (up to its
``limit``: each child's end queues the next, which starts as soon as it is READY). A child
another process holds is left to it (the parent is then returned WAITING).

Up: a child a caller resumed itself (e.g. after answering its approval: ``answer`` then
``resume(child)``) whose end answered its parent goes on with the parent here (:func:`go_up` /
:func:`ago_up`): a parent made READY is resumed (and, when it ends, its own parent, up the
chain); a fan-out parent still WAITING runs its READY children here, as above. So ``answer`` +
``resume(child)`` finishes the whole team in one process; the call still returns the child's
own run (read the parent with ``store.get``: the child's row names it). A parent whose program
cannot be imported by its name (``module:attribute``), or that another process holds, is left
READY for a worker or a later ``resume``. A child run by its parent's caller (down) does not
go up: that caller resumes the parent itself.

A FAILED child is its parent's :class:`~agentsm_fn.teams.ChildFailed` at once (the outcome is
stored once); resuming that child later (a FAILED run is resumable) and finishing it does not
tell the parent again: the parent went on with the failure. Resume the parent's side (or start a
new child) to act on the later result; this is deliberate (exactly one outcome per child) and
an open design question. :func:`after_stop` is what a run that stopped does for its family: a
child tells its parent how it ended; a parent that waits settles its group (a child that ended
before the wait was stored is seen there).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from returns.result import Failure, Result

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.child_errors import ChildMachineChanged
from agentsm_fn.durable.errors import DurableError, MachineChanged
from agentsm_fn.durable.running.child_programs import AnyProgram, ended_outcome, failed_outcome, load_program
from agentsm_fn.durable.running.children import child_ended, children_store, settle
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore
from agentsm_fn.teams.values import Children, ChildRun

__all__ = ["after_stop", "ago_up", "arun_inline", "go_up", "run_inline", "staying"]

Ran = Result[StoredRun[Any, Any], DurableError]

_DRIVEN: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("_DRIVEN", default=frozenset())
"""The parents whose children this context runs (down): their children do not go up to them."""


_DEEPEST = 64
"""How deep a waiting child's children are looked at for one to run."""

_STAYING: contextvars.ContextVar[bool] = contextvars.ContextVar("_STAYING", default=False)


@contextlib.contextmanager
def staying() -> Iterator[None]:
    """Within: a child's end does not go up to its parent (``recover`` resumes every run itself).

    Example:
        >>> with staying():
        ...     _STAYING.get()
        True
    """
    token = _STAYING.set(True)
    try:
        yield
    finally:
        _STAYING.reset(token)


@contextlib.contextmanager
def _driving(run_id: str) -> Iterator[None]:
    token = _DRIVEN.set(_DRIVEN.get() | {run_id})
    try:
        yield
    finally:
        _DRIVEN.reset(token)


def _waits_on_children(result: Ran) -> bool:
    stopped = result.value_or(None)
    if stopped is None or stopped.snapshot.pending is None:
        return False
    return isinstance(stopped.snapshot.pending.underlying(), ChildRun | Children)


def _ready(keeps: ChildStore, run_id: str, tried: set[str]) -> list[ChildRecord] | RunStatus | None:
    """The parent's children to run, not tried yet; its status if it is not WAITING (None: gone).

    A child to run is READY, or WAITING on children of its own of which one is to run (a
    grandchild whose approval was answered through the parent: ``answer_below``).
    """
    record = keeps.get(run_id).value_or(None)
    if record is None or record.status is not RunStatus.WAITING:
        return None if record is None else record.status
    group = keeps.children_of(run_id, record.effects).value_or(())
    return [r for r in group if r.run_id not in tried and _to_run(keeps, r, 0)]


def _to_run(keeps: ChildStore, child: ChildRecord, depth: int) -> bool:
    """Whether ``child`` is READY, or WAITING on a group of its own with a child to run."""
    if child.ended or child.status not in (RunStatus.READY, RunStatus.WAITING):
        return False
    if child.status is RunStatus.READY:
        return True
    record = keeps.get(child.run_id).value_or(None)
    if record is None or record.status is not RunStatus.WAITING or depth >= _DEEPEST:
        return False
    group = keeps.children_of(child.run_id, record.effects).value_or(())
    return any(_to_run(keeps, r, depth + 1) for r in group)


def run_inline(program: AnyProgram, store: RunStore, result: Ran) -> Ran:
    """With no workers: run the children a parent waits on here, then the parent (see the module)."""
    keeps = children_store(store)
    if keeps is None or not _waits_on_children(result):
        return result
    return _drive(program, keeps, result.unwrap().run_id) or result


def _drive(program: AnyProgram, keeps: ChildStore, run_id: str) -> Ran | None:
    """Run parent ``run_id``'s READY children here until it is answered, then resume it; None: it waits."""
    tried = set[str]()
    with _driving(run_id):
        while True:
            ready = _ready(keeps, run_id, tried)
            if ready is RunStatus.READY:  # answered: go on
                break
            if not isinstance(ready, list) or not ready:
                return None
            for child in ready:
                tried.add(child.run_id)
                _run_child(keeps, child)
    return program.resume(keeps, run_id)  # its own end goes up, if it is a child


def _run_child(store: ChildStore, child: ChildRecord) -> None:
    loaded = load_program(child.program, {})
    if isinstance(loaded, Failure):
        child_ended(
            store, child.run_id, failed_outcome(child.program, child.run_id, loaded.failure().describe())
        )
        return
    _changed(store, child, loaded.unwrap().resume(store, child.run_id))


def _changed(store: ChildStore, child: ChildRecord, ran: Ran) -> None:
    """A child whose stored machine changed cannot run: it is a failed child."""
    if isinstance(ran, Failure) and isinstance(ran.failure(), MachineChanged):
        changed = ran.failure()
        assert isinstance(changed, MachineChanged)
        why = ChildMachineChanged(
            run_id=child.run_id, program=child.program, stored=changed.stored, current=changed.current
        )
        child_ended(store, child.run_id, failed_outcome(child.program, child.run_id, why.describe()))


async def arun_inline(program: AnyProgram, store: RunStore, result: Ran) -> Ran:
    """:func:`run_inline` on asyncio: a fan-out's READY children run concurrently (see the module)."""
    keeps = children_store(store)
    if keeps is None or not _waits_on_children(result):
        return result
    return await _adrive(program, keeps, result.unwrap().run_id) or result


async def _adrive(program: AnyProgram, keeps: ChildStore, run_id: str) -> Ran | None:
    tried, running = set[str](), set[asyncio.Task[None]]()
    with _driving(run_id):  # the tasks made here copy this context
        try:
            while True:
                ready = await asyncio.to_thread(_ready, keeps, run_id, tried)
                if ready is RunStatus.READY and not running:
                    break
                for child in ready if isinstance(ready, list) else ():
                    tried.add(child.run_id)
                    running.add(asyncio.create_task(_arun_child(keeps, child)))
                if not running:
                    return None
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                running -= done
                for task in done:
                    task.result()  # a child's exception is the caller's
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
    return await program.aresume(keeps, run_id)


async def _arun_child(store: ChildStore, child: ChildRecord) -> None:
    loaded = load_program(child.program, {})
    if isinstance(loaded, Failure):
        why = failed_outcome(child.program, child.run_id, loaded.failure().describe())
        await asyncio.to_thread(child_ended, store, child.run_id, why)
        return
    ran = await loaded.unwrap().aresume(store, child.run_id)
    await asyncio.to_thread(_changed, store, child, ran)


def _parent(store: RunStore, run_id: str) -> tuple[AnyProgram, ChildStore, str, RunStatus] | None:
    """The parent run ``run_id``'s end answered, unless driven here or not loadable; its status."""
    keeps = children_store(store)
    if keeps is None or _STAYING.get():
        return None
    row = keeps.child(run_id).value_or(None)
    if row is None or not row.ended or row.parent in _DRIVEN.get():
        return None
    record = keeps.get(row.parent).value_or(None)
    if record is None or record.status not in (RunStatus.READY, RunStatus.WAITING):
        return None
    loaded = load_program(record.machine, {})
    if isinstance(loaded, Failure):
        return None
    return loaded.unwrap(), keeps, row.parent, record.status


def go_up(store: RunStore, run_id: str) -> None:
    """Run ``run_id`` ended as a child its caller ran: go on with its parent here (see the module)."""
    found = _parent(store, run_id)
    if found is None:
        return
    program, keeps, parent, status = found
    if status is RunStatus.READY:
        program.resume(keeps, parent)
    else:
        _drive(program, keeps, parent)


async def ago_up(store: RunStore, run_id: str) -> None:
    """:func:`go_up` on asyncio."""
    found = await asyncio.to_thread(_parent, store, run_id)
    if found is None:
        return
    program, keeps, parent, status = found
    if status is RunStatus.READY:
        await program.aresume(keeps, parent)
    else:
        await _adrive(program, keeps, parent)


def after_stop(
    program: AnyProgram,
    store: RunStore,
    run_id: str,
    snapshot: Snapshot[Any, Any],
    reason: str | None,
    seq: int,
) -> None:
    """Where a run stopped: a child that ended tells its parent; a parent that waits settles its children."""
    keeps = children_store(store)
    if keeps is None:
        return
    if snapshot.finished or reason is not None:
        outcome = (
            ended_outcome(program, run_id, snapshot)
            if reason is None
            else failed_outcome(program.name, run_id, reason)
        )
        child_ended(keeps, run_id, outcome)
    elif snapshot.pending is not None and isinstance(snapshot.pending.underlying(), ChildRun | Children):
        settle(keeps, run_id, seq)  # ``seq``: the effect it waits on
