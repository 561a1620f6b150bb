"""What a durable run does for its family, as its program runs it: children down, parents up.

:class:`~agentsm_fn.durable.running.program.DurableProgram` calls these around its loop: the
performers of child-run effects (:func:`performers_of`: they hand a parent's children to its
session, stored with its wait), running the children a parent waits on here (:func:`inline`:
:mod:`~agentsm_fn.durable.running.children_inline`) and going on with the parent of a child
this call resumed (:func:`up`: :mod:`~agentsm_fn.durable.running.children_up`). Those modules
build on the program's, so they are imported when first called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.running._tracing import nesting
from agentsm_fn.durable.running.session import Session
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.shell.run import Shell

if TYPE_CHECKING:
    from agentsm_fn.durable.running.program import DurableProgram, StoredRun

__all__ = ["achildren_here", "aup", "journaled_shell", "children_here", "up"]

Ran: TypeAlias = 'Result["StoredRun[Any, Any]", DurableError]'


def journaled_shell(session: Session, shell: Shell) -> Shell:
    """``shell`` journaling through ``session`` (its performers wrapped, the session's clock).

    In a store keeping child runs, child-run effects' performers are added (unless given).
    """
    from agentsm_fn.durable.running.child_requests import with_children  # noqa: PLC0415  # on program

    performers = with_children(session.store, shell.performers, session.hold_children, nesting(shell))
    return attrs.evolve(shell, performers=session.performers(performers), clock=session.clock)


def children_here(
    program: DurableProgram[Any, Any, Any], store: RunStore, result: Ran, session: Session
) -> Ran:
    """A parent that stopped to wait for its children: run them here, then go on (no workers needed)."""
    from agentsm_fn.durable.running.children_inline import run_inline  # noqa: PLC0415  # on program

    return run_inline(program, store, result, session.taken_child)


async def achildren_here(
    program: DurableProgram[Any, Any, Any], store: RunStore, result: Ran, session: Session
) -> Ran:
    """:func:`children_here` on asyncio: a fan-out's children run concurrently."""
    from agentsm_fn.durable.running.children_inline import arun_inline  # noqa: PLC0415  # on program

    return await arun_inline(program, store, result, session.taken_child)


def up(store: RunStore, session: Session) -> None:
    """A child this call resumed that ended: its parent goes on here (nothing for a run no one's child)."""
    if session.child is None:
        return
    from agentsm_fn.durable.running.children_up import go_up  # noqa: PLC0415  # on program

    go_up(store, session.run_id)


async def aup(store: RunStore, session: Session) -> None:
    """:func:`up` on asyncio."""
    if session.child is None:
        return
    from agentsm_fn.durable.running.children_up import ago_up  # noqa: PLC0415  # on program

    await ago_up(store, session.run_id)
