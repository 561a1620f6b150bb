"""One AG-UI run as its event stream: start or resume the stored run, and say what it does as it does it.

The stream opens with ``RUN_STARTED`` (its metadata names the stored run:
``{"agentsm_fn": {"run": RUN}}``), then the run's steps, messages, tool calls and state
(:mod:`agentsm_fn.server.agui.translate`), and ends where the stored run stopped::

    finished           (a text message of the answer, when no LLM reply carried it: the
                       agent's ``answer_message``), RUN_FINISHED, outcome success, result:
                       the agent's result
                       (a ReAct run a guardrail refused is finished so: its refusal is
                       the answer message)
    finished, failed   RUN_ERROR: code and reason from the agent's ``error`` (a ReAct
                       agent in Error: ``AgentFailed``; a plan-and-execute one in HALT:
                       its ``HaltCause``, ``invalid_plan``, ...), message redacted
    waits for answer   RUN_FINISHED, outcome interrupt: one interrupt ``RUN#SEQ`` (a run
                       that waits on its children: the first waiting descendant's, e.g.
                       ``RUN.c1#SEQ``, a tool approval inside the child)
    failed             RUN_ERROR: code = the typed reason (``InvalidTransition``,
                       ``EffectFailed``, ``RunBusy``, ...), message redacted

A run that waits for its child runs has them run here and goes on (their steps are named
for them: :mod:`agentsm_fn.server.agui.children`). A client that goes away does not stop the
run: it is stored, and runs on to where it stops (finished, waiting, or failed), as if the
client had stayed. A slow client slows the run down: the run waits for room in the bounded
feed before each effect, as a run stream waits for its consumer; once the client left, the
run no longer waits. The endpoint answers with
:func:`~agentsm_fn.server.streaming.streamed_response`, which stops writing as soon as the client
left and closes this stream then (its feed with it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import attrs
from ag_ui.core import (
    BaseEvent,
    Message,
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
)
from ag_ui.encoder import EventEncoder
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import DurableError, Stopped
from agentsm_fn.durable.operations.threads import fork_thread
from agentsm_fn.durable.operations.waiting_below import pending_of
from agentsm_fn.durable.running.chat import keep_turn, turn_program
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.thread_errors import ThreadError
from agentsm_fn.llm.json import JsonObject
from agentsm_fn.server.agui.agent import AguiAgent
from agentsm_fn.server.agui.children import children_run_here
from agentsm_fn.server.agui.feed import FEED_SIZE, Feed, observed, watched
from agentsm_fn.server.agui.interrupts import interrupt_for
from agentsm_fn.server.agui.request import AguiRequest
from agentsm_fn.server.agui.translate import Translator
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.run import Shell

__all__ = ["StartingPoint", "ThreadTurn", "run_events"]

_RUNNING: set[asyncio.Task[Any]] = set()
"""Runs whose client went away: kept referenced until they stop."""

Outcome = Result[StoredRun[Any, Any], ThreadError]


@attrs.frozen(kw_only=True)
class ThreadTurn:
    """The thread turn an AG-UI run is: added to ``thread_id`` as turn ``turn``, or a fork's turn.

    ``fork`` is the new thread's id when the run is an edited turn (a fork of ``thread_id`` at
    ``turn``: :func:`~agentsm_fn.durable.operations.threads.fork_thread`); ``resumed`` is True
    when the run resumes a turn that waited for an answer.
    """

    thread_id: str
    turn: int
    message: str
    fork: str = ""
    resumed: bool = False

    @property
    def thread(self) -> str:
        """The stored thread the turn is in."""
        return self.fork or self.thread_id


@attrs.frozen(kw_only=True)
class StartingPoint:
    """Where the AG-UI run starts: the stored run, its state and memory, and a new one's first memory.

    ``memory`` is None for a resumed run (it continues from its journal); ``announced``
    the tool calls an earlier AG-UI run of it announced already (the one awaiting approval).
    ``turn`` is the thread turn the run is (None: a run of no thread), ``messages`` the
    thread's conversation sent first as ``MESSAGES_SNAPSHOT`` (None: none is sent).
    """

    stored: str
    state: str
    shown: JsonObject
    memory: object = None
    announced: frozenset[str] = frozenset()
    turn: ThreadTurn | None = None
    messages: tuple[Message, ...] | None = None


def _error(error: ThreadError) -> RunErrorEvent:
    code = type(error.failed.reason).__name__ if isinstance(error, Stopped) else type(error).__name__
    return RunErrorEvent(message=redact_credentials(error.describe()), code=code)


def _last(store: RunStore, agent: AguiAgent[Any, Any, Any], request: AguiRequest, done: Outcome) -> BaseEvent:
    if isinstance(done, Failure):
        return _error(done.failure())
    stored = done.unwrap()
    thread, run = request.thread_id, request.run_id
    if stored.finished:
        failed = agent.error(stored.snapshot)
        if failed is not None:
            return RunErrorEvent(message=redact_credentials(failed[1]), code=failed[0])
        result = agent.result(stored.snapshot.memory)
        return RunFinishedEvent(
            thread_id=thread, run_id=run, result=result, outcome=RunFinishedSuccessOutcome()
        )
    waiting = pending_of(store, stored.run_id).value_or(())  # its own, or a child's (an approval in it)
    if not waiting:
        return RunErrorEvent(
            message=f"run {stored.run_id} stopped waiting, but no answer is pending", code="NotWaiting"
        )
    first = waiting[0]
    interrupt = interrupt_for(first.run_id, first.seq, first.effect, first.summary)
    outcome = RunFinishedInterruptOutcome(interrupts=[interrupt])
    return RunFinishedEvent(thread_id=thread, run_id=run, outcome=outcome)


def _told(
    held: DurableProgram[Any, Any, Any], tell: Callable[[Shell, Feed], Shell], feed: Feed
) -> DurableProgram[Any, Any, Any]:
    """The agent holding a thread, its runs told to ``feed`` as the thread's own program's are."""
    return attrs.evolve(held, shell=lambda: tell(held.shell(), feed))


async def _turned(
    base: Durable[Any, Any, Any], store: RunStore, opening: StartingPoint, feed: Feed
) -> Outcome:
    """A thread's next turn (on the loop, its performers gated), or a fork's (run on a thread, watched)."""
    turn = opening.turn
    assert turn is not None
    if not turn.fork:  # a turn on the agent holding the thread (a handoff's) is told to the feed too
        durable: Durable[Any, Any, Any] = attrs.evolve(
            base, shell=lambda: observed(base.shell(), feed), holding=lambda held: _told(held, observed, feed)
        )
        chatted = await durable.achat(
            store, turn.thread_id, turn.message, run_id=opening.stored, inline=False
        )
    else:  # fork_thread runs its turn where it is called: on a worker thread, told to the feed as it goes
        durable = attrs.evolve(
            base, shell=lambda: watched(base.shell(), feed), holding=lambda held: _told(held, watched, feed)
        )
        chatted = await asyncio.to_thread(
            fork_thread,
            durable,
            store,
            turn.thread_id,
            turn.turn,
            turn.message,
            turn.fork,
            opening.stored,
            inline=False,
        )
    if isinstance(chatted, Failure):
        return Failure(chatted.failure())
    # a turn that waits for its children (a handoff, an agent tool) has them run here, as a run does,
    # with the program its run is of (the agent holding the thread, after a handoff); then what it
    # leaves is kept, so the thread names its holder at once
    run = chatted.unwrap().run
    program = await asyncio.to_thread(turn_program, store, base, run.run_id)
    ran_by = program.unwrap() if isinstance(program, Success) else base
    ended = await _children_too(ran_by, store, feed, _now(Success(run)))
    await asyncio.to_thread(keep_turn, store, ran_by, ended)
    return ended


async def _now(
    result: Result[StoredRun[Any, Any], DurableError],
) -> Result[StoredRun[Any, Any], DurableError]:
    """``result``, awaited (what :func:`_children_too` takes)."""
    return result


def _go(
    agent: AguiAgent[Any, Any, Any], store: RunStore, opening: StartingPoint, feed: Feed
) -> Awaitable[Outcome]:
    base = agent.durable
    if opening.turn is not None and not opening.turn.resumed:
        return _turned(base, store, opening, feed)
    if opening.memory is None:
        return _resumed(base, store, opening, feed)
    durable: Durable[Any, Any, Any] = attrs.evolve(base, shell=lambda: observed(base.shell(), feed))
    # inline=False: the children are run by _children_too, which shows their steps as they run
    return _children_too(
        base, store, feed, durable.astart(store, opening.memory, run_id=opening.stored, inline=False)
    )


async def _resumed(
    base: Durable[Any, Any, Any], store: RunStore, opening: StartingPoint, feed: Feed
) -> Outcome:
    """A run resumed after an answer: a thread's turn on the agent that held the thread (a handoff's) too."""
    program = await asyncio.to_thread(turn_program, store, base, opening.stored)
    held = program.unwrap() if isinstance(program, Success) and opening.turn is not None else base
    ran: Durable[Any, Any, Any] = attrs.evolve(held, shell=lambda: observed(held.shell(), feed))
    return await _children_too(held, store, feed, ran.aresume(store, opening.stored, inline=False))


async def _children_too(
    base: Durable[Any, Any, Any],
    store: RunStore,
    feed: Feed,
    started: Awaitable[Result[StoredRun[Any, Any], DurableError]],
) -> Outcome:
    """Where the run stops; one that waits for its children has them run here, and goes on (on a thread)."""
    threaded: Durable[Any, Any, Any] = attrs.evolve(base, shell=lambda: watched(base.shell(), feed))
    return await children_run_here(threaded, store, await started, feed.put)


def _started(request: AguiRequest, opening: StartingPoint) -> RunStartedEvent:
    """RUN_STARTED, its metadata naming the stored run (and its thread and turn)."""
    named: dict[str, object] = {"run": opening.stored}
    if opening.turn is not None:
        named.update(thread=opening.turn.thread, turn=opening.turn.turn)
    return RunStartedEvent(thread_id=request.thread_id, run_id=request.run_id, metadata={"agentsm_fn": named})


async def run_events(
    agent: AguiAgent[Any, Any, Any],
    store: RunStore,
    request: AguiRequest,
    opening: StartingPoint,
    capacity: int = FEED_SIZE,
) -> AsyncGenerator[str, None]:
    """The AG-UI run's events, SSE-encoded by the protocol package's encoder.

    The run waits for the client when it is ``capacity`` items behind (:mod:`.feed` says how).
    """
    encode = EventEncoder().encode
    feed = Feed(capacity)
    task: asyncio.Task[Outcome] = asyncio.ensure_future(_go(agent, store, opening, feed))  # before any write:
    _RUNNING.add(task)  # a client that leaves after the first event must not keep the run from starting
    task.add_done_callback(_RUNNING.discard)
    task.add_done_callback(lambda _task: feed.buffer.close())  # what it put is there: take it, then stop
    translator = Translator(request.run_id, opening.announced)
    try:
        yield encode(_started(request, opening))
        if opening.messages is not None:
            yield encode(MessagesSnapshotEvent(messages=list(opening.messages)))
        for event in translator.opening(opening.state, opening.shown):
            yield encode(event)
        while batch := await feed.buffer.take():
            for happening in batch:
                for event in translator.feed(happening):
                    yield encode(event)
    finally:  # the run is over, or its client left and it runs on: nobody reads the feed now
        feed.close()
    for event in translator.stopping(translator.state):  # a run that never started: its step ends here
        yield encode(event)
    last = _last(store, agent, request, task.result())
    if isinstance(last, RunFinishedEvent) and isinstance(last.outcome, RunFinishedSuccessOutcome):
        for event in translator.said(agent.answer_message(task.result().unwrap().snapshot.memory)):
            yield encode(event)
    yield encode(last)
