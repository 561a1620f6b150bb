"""Who holds a thread's conversation after a turn, and the conversation as the holder has it.

A turn's run that handed the conversation to another agent (its final memory is
:class:`~agentsm_fn.teams.Handing` and names that agent's program) ran that agent as a child
run; the child may have handed it on in turn. :func:`held_after` follows the chain to the agent
that answered last: it holds the conversation, and the thread so far is that agent's own (what
the handoff's input filter let it see, the user's message, and what it said), read from its
child run's final memory by one replay. A turn that handed nothing off is held by its own run's
program. :func:`runner_of` gives the program a stored run of a thread belongs to, so the next
turn is started on the holder in any process (imported by its name, as a child's program is).
"""

from __future__ import annotations

from typing import Any

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.running.child_programs import AnyProgram, load_program
from agentsm_fn.durable.running.children import children_store
from agentsm_fn.durable.running.replay import replayed
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.thread_errors import HolderUnknown, NotConversational, ThreadError
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.teams.turns import Handing

__all__ = ["DEEPEST", "Held", "held_after", "runner_of"]

DEEPEST = 32
"""The longest chain of handoffs within one turn that is followed (a longer one is refused)."""


@attrs.frozen(kw_only=True)
class Held:
    """The thread after a turn: the program that holds it (``module:attribute``) and the conversation."""

    holder: str
    thread: Conversation


def runner_of(store: RunStore, program: AnyProgram, run_id: str) -> Result[AnyProgram, ThreadError]:
    """The program whose run ``run_id`` is: ``program`` (the thread's), or the agent that held the thread."""
    record = store.get(run_id)
    if isinstance(record, Failure):
        return record
    return holder_program(program, record.unwrap().machine, run_id)


def holder_program(program: AnyProgram, holder: str, where: str) -> Result[AnyProgram, ThreadError]:
    """The program called ``holder`` (``program`` itself when it is its name), fit to take a turn."""
    if holder in ("", program.name):
        return Success(program)
    loaded = load_program(holder, {})
    if isinstance(loaded, Failure):
        return Failure(HolderUnknown(holder=holder, where=where, why=loaded.failure().why))
    found = loaded.unwrap()
    if found.turns is None:
        return Failure(NotConversational(machine=holder))
    if type(found.machine.initial) is not type(program.machine.initial):
        why = f"its machine's states are not {program.name}'s (a thread's agents are of one kind)"
        return Failure(HolderUnknown(holder=holder, where=where, why=why))
    return Success(found if program.holding is None else program.holding(found))


def held_after(store: RunStore, program: AnyProgram, run_id: str, memory: Any) -> Result[Held, ThreadError]:
    """Who holds the thread after the turn whose run ``run_id`` (of ``program``) ended with ``memory``."""
    for _ in range(DEEPEST):
        target = memory.handed_to() if isinstance(memory, Handing) else None
        if target is None:
            if program.turns is None:
                return Failure(NotConversational(machine=program.name))
            return Success(Held(holder=program.name, thread=program.turns.so_far(memory)))
        found = _handed(store, program, run_id, target)
        if isinstance(found, Failure):
            return found
        program, run_id, memory = found.unwrap()
    return Failure(HolderUnknown(holder="", where=run_id, why=f"more than {DEEPEST} handoffs in one turn"))


def _handed(
    store: RunStore, program: AnyProgram, run_id: str, target: str
) -> Result[tuple[AnyProgram, str, Any], ThreadError]:
    """The agent ``target`` that run ``run_id`` handed the thread to: its program, run and final memory."""
    loaded = holder_program(program, target, run_id)
    if isinstance(loaded, Failure):
        return loaded
    kept = children_store(store)
    if kept is None:
        return Failure(HolderUnknown(holder=target, where=run_id, why="the store keeps no child runs"))
    rows = kept.children_of(run_id)
    if isinstance(rows, Failure):
        return rows
    handed = [row for row in rows.unwrap() if row.program == target]
    if not handed:
        return Failure(HolderUnknown(holder=target, where=run_id, why="no child run of it is stored"))
    child = handed[-1].run_id  # the handoff ends the run: its last child of that program
    replay = replayed(store, loaded.unwrap().machine, child)
    if isinstance(replay, Failure):
        return replay
    return Success((loaded.unwrap(), child, replay.unwrap()[0].memory))
