"""``Durable``: a durable program with its stream and its turns, the class users make.

Everything a durable program does but stream and chat is
:class:`~agentsm_fn.durable.running.program.DurableProgram`; ``astream`` and the thread calls
(``chat``, ``achat``, ``astream_chat``) are here, above the modules that do them
(:mod:`agentsm_fn.durable.running.streaming`, :mod:`agentsm_fn.durable.running.chat`), which
build on that class, so neither imports the other back.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncGenerator
from typing import TypeVar

import attrs
from returns.result import Result

from agentsm_fn.durable.running.chat import POLL, Turn, achat, astream_chat, chat
from agentsm_fn.durable.running.program import DurableProgram
from agentsm_fn.durable.running.streaming import astream_durable
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.thread_errors import ThreadError
from agentsm_fn.shell.streaming import BUFFER_SIZE
from agentsm_fn.stream.events import RunEvent

__all__ = ["Durable"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Durable(DurableProgram[StateT, EventT, MemoryT]):
    """A machine as a durable program: its name, the machine, how to perform its effects, its stream.

    Its fields and every method but ``astream`` and the thread calls are :class:`DurableProgram`'s.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> Durable(name="app:AGENT", machine=REACT_MACHINE).checkpoint_after
        32
    """

    def astream(
        self,
        store: RunStore,
        memory: MemoryT | None = None,
        *,
        run_id: str | None = None,
        after: int = -1,
        buffer: int = BUFFER_SIZE,
    ) -> AsyncGenerator[RunEvent, None]:
        """A run as a stream of its events (:func:`~agentsm_fn.shell.astream`): new, or stored.

        With ``memory``, :meth:`astart` (under ``run_id``, or a new id). Without, the
        stored run ``run_id``: its history after position ``after`` (its journal
        replayed, :func:`~agentsm_fn.durable.running.streaming.stored_events`), then, unless it
        finished or waits for an answer, :meth:`aresume` as it goes on. The last event's
        ``result`` is what :meth:`astart`/:meth:`aresume` return. Leaving the loop early
        cancels the run; it stays stored and resumable.
        """
        return astream_durable(self, store, memory, run_id, after, buffer)

    def chat(
        self,
        store: RunStore,
        thread_id: str,
        message: str,
        *,
        queue: bool = False,
        poll: float = POLL,
        run_id: str | None = None,
    ) -> Result[Turn[StateT, MemoryT], ThreadError]:
        """Send ``message`` to thread ``thread_id`` and run its turn here; the turn (one call per turn).

        The thread is made on first use. The turn's start memory is :attr:`turns`' start of the
        thread so far (one stored value) and ``message``; one conditional write in the store
        gives the turn its number, so a message sent while the last turn runs or waits for an
        answer is refused (:class:`~agentsm_fn.durable.thread_errors.ThreadBusy`, naming that
        turn), or with ``queue`` takes the next place and runs once that turn ended (looking
        every ``poll`` seconds). The turn's run is ``run_id`` (default: a new id), as in :meth:`start`.
        See :mod:`agentsm_fn.durable.running.chat`.

        Example:
            >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
            >>> from agentsm_fn.durable import SqliteStore
            >>> from agentsm_fn.llm import LlmReply
            >>> from agentsm_fn.shell.react_performers import react_shell
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> from agentsm_fn.tools import ToolRegistry
            >>> llm = ScriptedLlm([LlmReply(content="Hello Ada, nice to meet you!"),
            ...                    LlmReply(content="Your name is Ada, as you said.")])
            >>> agent = Durable(name="app:AGENT", machine=REACT_MACHINE, template=AgentMemory.new(""),
            ...                 shell=lambda: react_shell(llm, ToolRegistry()))
            >>> store = SqliteStore.open(":memory:").unwrap()
            >>> agent.chat(store, "t1", "I am Ada.").unwrap().turn
            0
            >>> turn = agent.chat(store, "t1", "What is my name?").unwrap()
            >>> turn.turn, turn.run.snapshot.memory.final_answer
            (1, 'Your name is Ada, as you said.')
            >>> [m.content for m in turn.run.snapshot.memory.conversation.sent()]  # the earlier turn
            ['I am Ada.', 'Hello Ada, nice to meet you!']
            >>> store.close()
        """
        return chat(self, store, thread_id, message, queue=queue, poll=poll, run_id=run_id)

    async def achat(
        self,
        store: RunStore,
        thread_id: str,
        message: str,
        *,
        queue: bool = False,
        poll: float = POLL,
        run_id: str | None = None,
        inline: bool = True,
    ) -> Result[Turn[StateT, MemoryT], ThreadError]:
        """:meth:`chat` on asyncio: the store's reads and writes in a thread, the turn's run on the loop.

        Children the turn waits on (a handoff's agent) run here too, unless ``inline`` is False.
        """
        return await achat(
            self, store, thread_id, message, queue=queue, poll=poll, run_id=run_id, inline=inline
        )

    def astream_chat(
        self,
        store: RunStore,
        thread_id: str,
        message: str,
        *,
        queue: bool = False,
        poll: float = POLL,
        buffer: int = BUFFER_SIZE,
        run_id: str | None = None,
    ) -> AsyncGenerator[RunEvent, None]:
        """:meth:`achat` as a stream: the turn's run's events (:meth:`astream`), its result on the last one.

        A refused message is one ``Failed`` event (no run id): ``reason`` is the error's class
        name (``ThreadBusy``), ``result`` the failure.
        """
        return astream_chat(
            self, store, thread_id, message, queue=queue, poll=poll, buffer=buffer, run_id=run_id
        )
