"""``Durable``: a durable program with its stream, the class users make (``agentsm_fn.durable``).

Everything a durable program does but stream is :class:`~agentsm_fn.durable.running.program.DurableProgram`;
``astream`` is here, above the module that streams (:mod:`agentsm_fn.durable.running.streaming`),
which builds on that class, so neither imports the other back.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncGenerator
from typing import TypeVar

import attrs

from agentsm_fn.durable.running.program import DurableProgram
from agentsm_fn.durable.running.streaming import astream_durable
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.shell.streaming import BUFFER_SIZE
from agentsm_fn.stream.events import RunEvent

__all__ = ["Durable"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Durable(DurableProgram[StateT, EventT, MemoryT]):
    """A machine as a durable program: its name, the machine, how to perform its effects, its stream.

    Its fields and every method but ``astream`` are :class:`DurableProgram`'s.

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
