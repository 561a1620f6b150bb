"""A durable program: a machine run whose every effect outcome is committed to a store first.

:class:`DurableProgram` (what :class:`~agentsm_fn.durable.running.durable.Durable` is, but for
its stream) binds a machine to the name it is found by (``module:attribute``: the command line
and other processes load it) and to a factory of the shell that performs its effects. ``start``
runs a new stored run; ``resume`` continues a stored one in any process, replaying its journal
from its latest checkpoint (no committed effect is performed again). Results are ``StoredRun``
or a :data:`~agentsm_fn.durable.errors.DurableError`. A run's session (``_sessions``), where it
stops (``_settling``) and its child runs (``_family``) are modules of their own.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import attrs
from returns.result import Failure, Result

from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.running._family import achildren_here, aup, children_here, journaled_shell, up
from agentsm_fn.durable.running._sessions import new_session, resumable_session, taken_session
from agentsm_fn.durable.running._settling import settle_run
from agentsm_fn.durable.running._tracing import continued
from agentsm_fn.durable.running.session import Session
from agentsm_fn.durable.running.stored import Ran, StoredRun
from agentsm_fn.durable.running.templates import template_mismatch
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.llm.turns import TurnStart, template_turns
from agentsm_fn.shell.run import Shell, arun, run

__all__ = ["DurableProgram", "StoredRun"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class DurableProgram(Generic[StateT, EventT, MemoryT]):
    """A machine as a durable program: its name, the machine, and how to perform its effects.

    ``name`` is ``module:attribute`` of this object (the command line imports it from
    there); ``shell`` makes the :class:`Shell` (performers and clock) each time a run
    starts or resumes. A checkpoint is taken once at least ``checkpoint_after`` effects
    and at least as many bytes as the last checkpoint were journaled since it (so
    checkpoints cost at most about as much as the journal, and loading replays at most
    about that much).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> DurableProgram(name="app:AGENT", machine=REACT_MACHINE).checkpoint_after
        32
    """

    name: str
    machine: Machine[StateT, EventT, MemoryT]
    shell: Callable[[], Shell] = Shell
    checkpoint_after: int = 32
    lease: float = 300.0
    clock: Callable[[], float] | None = None
    """The clock for leases and store timestamps (default: the shell's)."""
    failure: Callable[[Snapshot[StateT, MemoryT]], str | None] | None = None
    """Why a run that reached a terminal state failed (None: it succeeded), e.g. an agent in its Error
    state (:func:`~agentsm_fn.agents.react.agent_failure`): such a run is stored FAILED with that reason."""
    template: MemoryT | None = None
    """The memory a run started from JSON begins with (the server's ``POST /runs``): the request's
    fields are filled into it and the rest keep its values (an agent's tools, system prompt and
    approval settings). None: a new memory of the machine's memory class, the rest at their defaults.
    A template that is not of the machine's memory class
    (:func:`~agentsm_fn.durable.running.templates.memory_type`) is refused here:
    :class:`~agentsm_fn.durable.running.templates.TemplateMismatch`."""
    result: Callable[[MemoryT], object] | None = None
    """What a run that finished (and did not fail) gives back, e.g. an agent's typed result
    (:func:`~agentsm_fn.agents.react.agent_result`): ``GET /runs/{id}``, AG-UI's ``RUN_FINISHED``,
    the inspector and ``agentsm-runs show`` show it. None: the program names no result."""
    turns: TurnStart[MemoryT] | None = attrs.field(
        default=attrs.Factory(lambda self: template_turns(self.template), takes_self=True)
    )
    """How a turn of a thread starts (:class:`~agentsm_fn.llm.TurnStart`: the declared function from the
    thread so far and the new message to the start memory, made by :func:`~agentsm_fn.llm.turn_start`).
    By default the template's own (:class:`~agentsm_fn.llm.TurnTemplate`: the built-in agents' memories),
    else None: the program takes no part in threads."""
    holding: Callable[[DurableProgram[Any, Any, Any]], DurableProgram[Any, Any, Any]] | None = None
    """How a turn of this program's thread runs on the agent that holds the thread after a handoff (given
    that agent's ``Durable``, imported by name): e.g. with the same observer as this program's shell
    (the AG-UI server streams the holder's turn so). None: as that agent's own ``Durable`` runs."""
    programs: tuple[DurableProgram[Any, Any, Any], ...] = ()
    """The programs its runs start as children, found by name in this process before any is imported
    (so a child defined in a script's ``__main__``, a notebook or a test can run on a store here;
    a worker in another process still imports its children by ``module:attribute``)."""

    def __attrs_post_init__(self) -> None:
        mismatch = template_mismatch(self.name, self.machine, self.template)
        if mismatch is not None:  # a programmer's error, shown where the Durable is made
            raise mismatch
        if self.programs:
            from agentsm_fn.durable.running.child_programs import known  # noqa: PLC0415  # builds on this

            known(self.programs)

    @property
    def fingerprint(self) -> str:
        """The machine's fingerprint (:func:`~agentsm_fn.machine_fingerprint`)."""
        return machine_fingerprint(self.machine)

    def result_of(self, snapshot: Snapshot[StateT, MemoryT]) -> object | None:
        """The :attr:`result` of a run stopped at ``snapshot``: None unless it finished and did not fail.

        Example:
            >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, State, agent_result
            >>> from agentsm_fn.core.snapshot import Snapshot, Status
            >>> durable = DurableProgram(name="app:AGENT", machine=REACT_MACHINE, result=agent_result)
            >>> done = AgentMemory.new("t").evolve(final_answer="Paris.")
            >>> durable.result_of(Snapshot(state=State.Done, memory=done, status=Status.FINISHED))
            'Paris.'
        """
        if self.result is None or snapshot.status is not Status.FINISHED:
            return None
        if self.failure is not None and self.failure(snapshot) is not None:
            return None
        return self.result(snapshot.memory)

    def start_at(
        self,
        store: RunStore,
        snapshot: Snapshot[StateT, MemoryT],
        run_id: str | None = None,
        parent: tuple[str, int] = ("", -1),
    ) -> Ran[StateT, MemoryT]:
        """Store a new run that starts from a READY ``snapshot`` (a fork: see ``travel.fork``)."""
        made = new_session(self, store, snapshot, snapshot.memory, run_id, parent)
        if isinstance(made, Failure):
            return made
        session, shell = made.unwrap()
        return self._loop(session, shell, snapshot)

    def start(
        self, store: RunStore, memory: MemoryT, run_id: str | None = None, *, inline: bool = True
    ) -> Ran[StateT, MemoryT]:
        """Store a new run from ``memory`` and run it until it finishes, waits, or fails.

        Children it waits on run here, then it goes on, unless ``inline`` is False (a worker's
        way: they are left queued): :mod:`~agentsm_fn.durable.running.children_inline`.
        """
        made = new_session(self, store, None, memory, run_id)
        if isinstance(made, Failure):
            return made
        session, shell = made.unwrap()
        session.take_child = inline
        ran = self._loop(session, shell, memory)
        return children_here(self, store, ran, session) if inline else ran

    def enqueue(
        self, store: RunQueue, memory: MemoryT, run_id: str | None = None
    ) -> Result[str, DurableError]:
        """Store a new run from ``memory`` as READY without running it; a worker runs it. Its id.

        Example:
            >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
            >>> from agentsm_fn.durable import Durable, SqliteStore
            >>> store = SqliteStore.open(":memory:").unwrap()
            >>> durable = Durable(name="app:AGENT", machine=REACT_MACHINE)
            >>> run_id = durable.enqueue(store, AgentMemory.new("2 + 2?"), run_id="r1").unwrap()
            >>> run_id, store.get(run_id).unwrap().status.value
            ('r1', 'ready')
            >>> store.close()
        """
        made = new_session(self, store, None, memory, run_id)
        if isinstance(made, Failure):
            return made
        new = made.unwrap()[0].create
        assert new is not None  # a new session holds its run until its first write
        return store.enqueue(attrs.evolve(new, owner="", lease_until=0.0)).map(lambda _: new.run_id)

    async def astart(
        self, store: RunStore, memory: MemoryT, run_id: str | None = None, *, inline: bool = True
    ) -> Ran[StateT, MemoryT]:
        """:meth:`start` on asyncio (async performers are awaited; a fan-out's children run concurrently)."""
        made = new_session(self, store, None, memory, run_id)
        if isinstance(made, Failure):
            return made
        session, shell = made.unwrap()
        session.take_child = inline
        ran = await self._aloop(session, shell, memory)
        return await achildren_here(self, store, ran, session) if inline else ran

    def run_taken(
        self, store: RunStore, memory: MemoryT, run_id: str, size: int, *, inline: bool = True
    ) -> Ran[StateT, MemoryT]:
        """Run a new run this process stored already from ``memory`` (``size`` bytes encoded), as its owner.

        A thread's turn: its run is stored in the transaction that takes the turn, so it is
        run from the memory in hand, with nothing read back (``resume`` would load it). Children
        it waits on (a handoff's agent) run here, then it goes on, as with :meth:`start` (unless
        ``inline`` is False: the caller runs them, as the AG-UI server does to show their steps).
        """
        session, shell = taken_session(self, store, run_id, size)
        session.take_child = inline
        ran = self._loop(session, shell, memory)
        return children_here(self, store, ran, session) if inline else ran

    async def arun_taken(
        self, store: RunStore, memory: MemoryT, run_id: str, size: int, *, inline: bool = True
    ) -> Ran[StateT, MemoryT]:
        """:meth:`run_taken` on asyncio."""
        session, shell = taken_session(self, store, run_id, size)
        session.take_child = inline
        ran = await self._aloop(session, shell, memory)
        return await achildren_here(self, store, ran, session) if inline else ran

    def resume(
        self, store: RunStore, run_id: str, allow_changed: bool = False, *, inline: bool = True
    ) -> Ran[StateT, MemoryT]:
        """Continue a stored run in this process: replay its journal, then run on.

        A run stored by a machine with another fingerprint is refused
        (:class:`~agentsm_fn.durable.errors.MachineChanged`) unless ``allow_changed``. Unless
        ``inline`` is False (a worker's way), children it waits on run here, and a child whose end
        answered its parent goes on with the parent here, up the chain (it returns its own run):
        :mod:`~agentsm_fn.durable.running.children_inline`.
        """
        return self._resume(store, run_id, allow_changed, inline, False)

    def _resume(
        self, store: RunStore, run_id: str, allow_changed: bool, inline: bool, taken: bool
    ) -> Ran[StateT, MemoryT]:
        """:meth:`resume`; ``taken``: this process owns the run already (a parent its child answered)."""
        ready = resumable_session(self, store, run_id, allow_changed, taken)
        if isinstance(ready, Failure):
            return ready
        session, shell, loaded = ready.unwrap()
        session.take_child = inline
        with continued(store, run_id, shell):  # linked to the trace that started the run
            ran = self._loop(session, shell, loaded.start)
            ran = children_here(self, store, ran, session) if inline else ran
        if inline:  # a child: its parent may go on here
            up(store, session)
        return ran

    async def aresume(
        self, store: RunStore, run_id: str, allow_changed: bool = False, *, inline: bool = True
    ) -> Ran[StateT, MemoryT]:
        """:meth:`resume` on asyncio; claiming and loading the run (store reads) run in a thread meanwhile.

        A worker passes ``inline=False``: the children and the parent are left to the workers.
        """
        return await self._aresume(store, run_id, allow_changed, inline, False)

    async def _aresume(
        self, store: RunStore, run_id: str, allow_changed: bool, inline: bool, taken: bool
    ) -> Ran[StateT, MemoryT]:
        """:meth:`_resume` on asyncio."""
        ready = await asyncio.to_thread(resumable_session, self, store, run_id, allow_changed, taken)
        if isinstance(ready, Failure):
            return ready
        session, shell, loaded = ready.unwrap()
        session.take_child = inline
        with continued(store, run_id, shell):
            ran = await self._aloop(session, shell, loaded.start)
            ran = await achildren_here(self, store, ran, session) if inline else ran
        if inline:
            await aup(store, session)
        return ran

    def _loop(
        self, session: Session, shell: Shell, start: MemoryT | Snapshot[StateT, MemoryT]
    ) -> Ran[StateT, MemoryT]:
        journaled = journaled_shell(session, shell)
        while True:
            settled = settle_run(self, session, shell, run(self.machine, start, journaled))
            if not isinstance(settled, Snapshot):
                return settled
            start = settled

    async def _aloop(
        self, session: Session, shell: Shell, start: MemoryT | Snapshot[StateT, MemoryT]
    ) -> Ran[StateT, MemoryT]:
        journaled = journaled_shell(session, shell)
        while True:
            result = await arun(self.machine, start, journaled)
            # Settling writes to the store (stop, checkpoint): in a thread, so the loop's other runs go on.
            settled = await asyncio.to_thread(settle_run, self, session, shell, result)
            if not isinstance(settled, Snapshot):
                return settled
            start = settled
