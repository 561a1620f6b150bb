"""Child runs with no workers, up: a child a caller resumed itself goes on with its parent here.

A child a caller resumed itself (e.g. after answering its approval: ``answer`` then
``resume(child)``) whose end answered its parent goes on with the parent here (:func:`go_up` /
:func:`ago_up`): a parent made READY is resumed (and, when it ends, its own parent, up the
chain); a fan-out parent still WAITING runs its READY children here
(:mod:`agentsm_fn.durable.running.children_inline`). So ``answer`` + ``resume(child)`` finishes
the whole team in one process; the call still returns the child's own run (read the parent with
``store.get``: the child's row names it). A parent whose program cannot be imported by its name
(``module:attribute``), or that another process holds, is left READY for a worker or a later
``resume``. A child run by its parent's caller (down) does not go up: that caller resumes the
parent itself; nor does one ``recover`` resumes (:func:`staying`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterator

from returns.result import Failure

from agentsm_fn.durable.running.child_programs import AnyProgram, load_program
from agentsm_fn.durable.running.children import children_store
from agentsm_fn.durable.running.children_inline import adrive_children, drive_children, driven
from agentsm_fn.durable.stores.protocol.children import ChildStore
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore

__all__ = ["ago_up", "go_up", "staying"]

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


def _parent(store: RunStore, run_id: str) -> tuple[AnyProgram, ChildStore, str, RunStatus] | None:
    """The parent run ``run_id``'s end answered, unless driven here or not loadable; its status."""
    keeps = children_store(store)
    if keeps is None or _STAYING.get():
        return None
    row = keeps.child(run_id).value_or(None)
    if row is None or not row.ended or driven(row.parent):
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
        drive_children(program, keeps, parent)


async def ago_up(store: RunStore, run_id: str) -> None:
    """:func:`go_up` on asyncio."""
    found = await asyncio.to_thread(_parent, store, run_id)
    if found is None:
        return
    program, keeps, parent, status = found
    if status is RunStatus.READY:
        await program.aresume(keeps, parent)
    else:
        await adrive_children(program, keeps, parent)
