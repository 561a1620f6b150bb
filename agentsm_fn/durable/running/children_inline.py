"""Child runs with no workers: a caller that runs a parent runs its children here, then goes on.

``Durable.start``/``resume`` and ``astart``/``aresume`` (unless ``inline=False``, as a worker
calls them: it leaves children to the workers) end with :func:`run_inline` / :func:`arun_inline`:
a parent that stopped to wait on its children (stored with its wait:
:mod:`agentsm_fn.durable.running.child_requests`) runs its children here, then resumes the parent,
so a plain user gets the parent's end from one call. The one child of a ``ChildRun`` was stored as
this process's: it runs at once from its start memory in hand, and its end hands the parent back
to this process (:func:`handed`: stored RUNNING, owned here, with the answer), which goes on with
it with nothing claimed again. The sync calls run a fan-out's READY children one after the other;
the async calls run them concurrently on asyncio (up to its ``limit``: each child's end queues
the next, which starts as soon as it is READY). A child another process holds is left to it (the
parent is then returned WAITING). A child that ends goes up to its parent unless the parent is
driven here (:mod:`agentsm_fn.durable.running.children_up`).

A FAILED child is its parent's :class:`~agentsm_fn.teams.ChildFailed` at once (the outcome is
stored once); resuming that child later (a FAILED run is resumable) and finishing it does not
tell the parent again: the parent went on with the failure. Resume the parent's side (or start a
new child) to act on the later result; this is deliberate (exactly one outcome per child) and
an open design question.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from returns.result import Failure, Result

from agentsm_fn.durable.child_errors import ChildMachineChanged
from agentsm_fn.durable.errors import DurableError, MachineChanged
from agentsm_fn.durable.running._sessions import taken_session
from agentsm_fn.durable.running._tracing import continued
from agentsm_fn.durable.running.child_programs import AnyProgram, failed_outcome, load_program
from agentsm_fn.durable.running.children import child_ended, children_store
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore
from agentsm_fn.durable.stores.protocol.owners import this_owner
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore
from agentsm_fn.teams.values import Children, ChildRun

__all__ = ["adrive_children", "arun_inline", "drive_children", "driven", "handed", "run_inline"]

Ran = Result[StoredRun[Any, Any], DurableError]

_DRIVEN: contextvars.ContextVar[Mapping[str, set[str]]] = contextvars.ContextVar(
    "_DRIVEN", default=MappingProxyType({})
)
"""The parents whose children this context runs (down): their children do not go up to them.

Each parent's set holds its own id once a child's end handed it to this context (``handed``).
"""

_DEEPEST = 64
"""How deep a waiting child's children are looked at for one to run."""


@contextlib.contextmanager
def _driving(run_id: str) -> Iterator[None]:
    token = _DRIVEN.set({**_DRIVEN.get(), run_id: set()})
    try:
        yield
    finally:
        _DRIVEN.reset(token)


def driven(parent: str) -> bool:
    """Whether this context runs ``parent``'s children (down): a child's end may hand it the parent.

    Example:
        >>> driven("p")
        False
    """
    return parent in _DRIVEN.get()


def handed(parent: str) -> None:
    """A child's end handed ``parent`` to this context (stored RUNNING, owned here): it goes on here."""
    found = _DRIVEN.get().get(parent)
    if found is not None:
        found.add(parent)


def _was_handed(parent: str) -> bool:
    return parent in _DRIVEN.get().get(parent, ())


def _waits_on_children(result: Ran) -> bool:
    stopped = result.value_or(None)
    if stopped is None or stopped.snapshot.pending is None:
        return False
    return isinstance(stopped.snapshot.pending.underlying(), ChildRun | Children)


def _ready(keeps: ChildStore, run_id: str, tried: set[str]) -> list[ChildRecord] | RunStatus | None:
    """The parent's children to run, not tried yet; its status if it is not WAITING (None: gone).

    A child to run is READY, or WAITING on children of its own of which one is to run (a
    grandchild whose approval was answered through the parent: ``answer_below``). RUNNING: its
    child's end handed it to this process (``ChildStop.take_until``), which goes on with it.
    """
    record = keeps.get(run_id).value_or(None)
    if record is not None and record.status is RunStatus.RUNNING:
        mine = record.owner == this_owner() and _was_handed(run_id)
        return RunStatus.RUNNING if mine else None  # else another process (or task) runs it
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


Taken = tuple[ChildRecord, object] | None
"""The one child a parent stored as this process's as it stopped to wait, and its start memory."""


def run_inline(program: AnyProgram, store: RunStore, result: Ran, taken: Taken = None) -> Ran:
    """With no workers: run the children a parent waits on here, then the parent (see the module).

    A child the parent stored as this process's (``taken``) runs first, from its memory in hand.
    """
    keeps = children_store(store)
    if keeps is None or not _waits_on_children(result):
        return result
    return drive_children(program, keeps, result.unwrap().run_id, taken) or result


def _run_taken(store: ChildStore, child: ChildRecord, memory: object) -> None:
    """Run a child its parent just stored as this process's (RUNNING, owned here), from ``memory``.

    Nothing is read back: the child's row and start memory are in hand. Its end answers its
    parent (``_child_ends``) and hands it back here; the caller goes on with the parent.
    """
    loaded = load_program(child.program, {})
    if isinstance(loaded, Failure):
        why = failed_outcome(child.program, child.run_id, loaded.failure().describe())
        child_ended(store, child.run_id, why)
        return
    program = loaded.unwrap()
    session, shell = taken_session(program, store, child.run_id, len(child.memory), child)
    session.take_child = True
    with continued(store, child.run_id, shell):  # nested under the parent's effect
        run_inline(program, store, program._loop(session, shell, memory), session.taken_child)


async def _arun_taken(store: ChildStore, child: ChildRecord, memory: object) -> None:
    loaded = load_program(child.program, {})
    if isinstance(loaded, Failure):
        why = failed_outcome(child.program, child.run_id, loaded.failure().describe())
        await asyncio.to_thread(child_ended, store, child.run_id, why)
        return
    program = loaded.unwrap()
    session, shell = taken_session(program, store, child.run_id, len(child.memory), child)
    session.take_child = True
    with continued(store, child.run_id, shell):
        await arun_inline(program, store, await program._aloop(session, shell, memory), session.taken_child)


def drive_children(program: AnyProgram, keeps: ChildStore, run_id: str, taken: Taken = None) -> Ran | None:
    """Run parent ``run_id``'s READY children here until it is answered, then resume it; None: it waits.

    ``taken``: the child it stored as this process's, run first (from its memory in hand).
    """
    tried = set[str]()
    with _driving(run_id):
        if taken is not None:
            _run_taken(keeps, *taken)
        while True:
            ready = _ready(keeps, run_id, tried)
            if ready is RunStatus.READY or ready is RunStatus.RUNNING:  # answered (handed here): go on
                break
            if not isinstance(ready, list) or not ready:
                return None
            for child in ready:
                tried.add(child.run_id)
                _run_child(keeps, child)
    if ready is RunStatus.RUNNING and isinstance(program, DurableProgram):  # handed here: no claim
        return program._resume(keeps, run_id, False, True, True)  # its end goes up, if a child
    return program.resume(keeps, run_id)  # (a stand-in that only resumes claims it: this owner's already)


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


async def arun_inline(program: AnyProgram, store: RunStore, result: Ran, taken: Taken = None) -> Ran:
    """:func:`run_inline` on asyncio: a fan-out's READY children run concurrently (see the module)."""
    keeps = children_store(store)
    if keeps is None or not _waits_on_children(result):
        return result
    return await adrive_children(program, keeps, result.unwrap().run_id, taken) or result


async def adrive_children(
    program: AnyProgram, keeps: ChildStore, run_id: str, taken: Taken = None
) -> Ran | None:
    """:func:`drive_children` on asyncio: a fan-out's READY children run concurrently."""
    tried, running = set[str](), set[asyncio.Task[None]]()
    with _driving(run_id):  # the tasks made here copy this context
        if taken is not None:
            await _arun_taken(keeps, *taken)
        try:
            while True:
                ready = await asyncio.to_thread(_ready, keeps, run_id, tried)
                if (ready is RunStatus.READY or ready is RunStatus.RUNNING) and not running:
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
    if ready is RunStatus.RUNNING and isinstance(program, DurableProgram):
        return await program._aresume(keeps, run_id, False, True, True)
    return await program.aresume(keeps, run_id)


async def _arun_child(store: ChildStore, child: ChildRecord) -> None:
    loaded = load_program(child.program, {})
    if isinstance(loaded, Failure):
        why = failed_outcome(child.program, child.run_id, loaded.failure().describe())
        await asyncio.to_thread(child_ended, store, child.run_id, why)
        return
    ran = await loaded.unwrap().aresume(store, child.run_id)
    await asyncio.to_thread(_changed, store, child, ran)
