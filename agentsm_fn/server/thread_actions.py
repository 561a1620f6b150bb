"""Routes that add to threads: send a message (a turn), stream a turn, and fork a thread at a turn.

``POST /threads/{id}/messages`` is ``Durable.chat``: the message becomes the thread's next turn
(one conditional write in the store gives it its number), run in the server's process until it
finishes, waits for an answer (an approval) or fails; the response is the turn, its run and the
messages it added. A thread is made by its first message, which names the served machine whose
runs its turns are. While the last turn runs or waits the message is refused, 409
``thread_busy`` naming that turn, unless ``queue`` asks to wait for it.
``POST /threads/{id}/messages/stream`` is the same turn as Server-Sent Events of its run (the
run's events, as ``GET /runs/{id}/events`` sends them): the turn runs to its stop even if the
client leaves, and the client may follow it there. ``POST /threads/{id}/fork`` is "edit and run
again from here" (``fork_thread``). A turn's failure is not a refused request: the response is
the turn, its run ``failed``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator
from typing import Any

from fastapi import APIRouter
from returns.result import Failure, Result
from sse_starlette import EventSourceResponse, ServerSentEvent

from agentsm_fn.durable.errors import Stopped
from agentsm_fn.durable.operations.threads import fork_thread
from agentsm_fn.durable.operations.waiting_below import pending_of
from agentsm_fn.durable.running.chat import Turn
from agentsm_fn.durable.stores.protocol.store import RunStatus
from agentsm_fn.durable.thread_errors import OtherMachine, ThreadBusy, ThreadError, ThreadNotFound
from agentsm_fn.llm.numbering import Numbered
from agentsm_fn.server.context import AnyDurable, ServerContext
from agentsm_fn.server.errors import ApiError, thread_error_for
from agentsm_fn.server.models import RunSummary
from agentsm_fn.server.runs import pending_item, unwrapped
from agentsm_fn.server.shutdown import Shutdown
from agentsm_fn.server.streaming import sse_response
from agentsm_fn.server.thread_models import ForkThreadRequest, SendRequest, TurnResult
from agentsm_fn.server.thread_view import message_json
from agentsm_fn.server.threads import kept_threads, thread_of, threaded
from agentsm_fn.server.values import record_json
from agentsm_fn.shell._stream_buffer import Buffer
from agentsm_fn.shell.streaming import BUFFER_SIZE
from agentsm_fn.stream.events import RunEvent, history_position
from agentsm_fn.stream.wire import event_to_json

__all__ = ["thread_action_routes"]

Chatted = Result[Turn[Any, Any], ThreadError]

_TURNS: set[asyncio.Task[None]] = set()
"""Streamed turns whose client may have left: kept referenced until they stop."""


def _machine(ctx: ServerContext, thread_id: str, named: str | None) -> AnyDurable:
    """The served machine whose runs are the thread's turns (a new thread's: the one the body names)."""
    found = kept_threads(ctx).thread(thread_id)
    if isinstance(found, Failure):
        if not isinstance(found.failure(), ThreadNotFound):
            raise thread_error_for(found.failure())
        if named is None:
            detail = f"thread {thread_id} is new: name the served machine whose runs are its turns (machine)"
            raise ApiError(422, "machine_needed", detail)
        return ctx.durable(named)
    machine = found.unwrap().machine
    if named is not None and named != machine:
        raise thread_error_for(OtherMachine(thread_id=thread_id, machine=machine, asked=named))
    return ctx.durable(machine)


def _idle(ctx: ServerContext, thread_id: str) -> None:
    """Refuse (409 ``thread_busy``) a message to a thread whose last turn has not ended."""
    found = kept_threads(ctx).thread(thread_id)
    last = None if isinstance(found, Failure) else found.unwrap().last
    if last is not None and not last.status.ended:
        busy = ThreadBusy(thread_id=thread_id, turn=last.turn, run_id=last.run_id, status=last.status.value)
        raise thread_error_for(busy)


def _result(ctx: ServerContext, durable: AnyDurable, thread_id: str, chatted: Chatted) -> TurnResult:
    """The turn a message made, its run as stored now, and the messages it added once it ended."""
    if isinstance(chatted, Failure):
        error = chatted.failure()
        if not isinstance(error, Stopped):  # refused: nothing was run
            raise thread_error_for(error)
        run_id, memory = error.run_id, error.failed.snapshot.memory  # the turn ran and failed
        (turn,) = [
            t.turn for t in threaded(kept_threads(ctx).turns_of_run(run_id)) if t.thread_id == thread_id
        ]
    else:
        done = chatted.unwrap()
        run_id, memory, turn, thread_id = done.run_id, done.run.snapshot.memory, done.turn, done.thread_id
    record = unwrapped(ctx.store.get(run_id))
    added: list[Numbered] = []
    if record.status in (RunStatus.FINISHED, RunStatus.FAILED) and durable.turns is not None:
        latest = durable.turns.so_far(memory).latest_turn
        added = [Numbered(turn, place, message) for place, message in enumerate(latest)]
    waiting = unwrapped(pending_of(ctx.store, run_id)) if record.status is RunStatus.WAITING else ()
    return TurnResult(
        thread_id=thread_id,
        turn=turn,
        run=RunSummary.model_validate(record_json(record)),
        messages=[message_json(item) for item in added],
        pending=pending_item(waiting[0]) if waiting else None,
    )


async def _forwarded(events: AsyncGenerator[RunEvent, None], buffer: Buffer[RunEvent]) -> None:
    """Hand the turn's events to its response while it listens; the turn runs to its stop either way."""
    try:
        async for event in events:
            await buffer.room()  # a slow client slows the turn down; one that left, not at all
            buffer.put(event)
    finally:
        buffer.close()


def thread_action_routes(ctx: ServerContext) -> APIRouter:
    """The ``POST`` routes that send messages to threads in ``ctx.store`` and fork them."""
    routes = APIRouter(tags=["threads"])
    shutdown = Shutdown()

    @routes.post("/threads/{thread_id}/messages", status_code=201, response_model=TurnResult)
    def send(thread_id: str, body: SendRequest) -> TurnResult:
        """Send a message: the thread's next turn, run here until it stops (a new thread is made by it)."""
        durable = _machine(ctx, thread_id, body.machine)
        return _result(
            ctx, durable, thread_id, durable.chat(ctx.store, thread_id, body.message, queue=body.queue)
        )

    @routes.post(
        "/threads/{thread_id}/messages/stream",
        response_class=EventSourceResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "the turn's run's events"}},
    )
    async def send_streamed(thread_id: str, body: SendRequest) -> EventSourceResponse:
        """Send a message and stream its turn: its run's events as Server-Sent Events (``id:``: position)."""
        durable = await asyncio.to_thread(_machine, ctx, thread_id, body.machine)
        if not body.queue:
            await asyncio.to_thread(_idle, ctx, thread_id)
        buffer: Buffer[RunEvent] = Buffer(BUFFER_SIZE)
        turn = durable.astream_chat(ctx.store, thread_id, body.message, queue=body.queue)
        task = asyncio.ensure_future(_forwarded(turn, buffer))
        _TURNS.add(task)
        task.add_done_callback(_TURNS.discard)

        async def sent() -> AsyncGenerator[ServerSentEvent, None]:
            try:
                while batch := await buffer.take():
                    for event in batch:
                        position = history_position(event)
                        shown = None if position is None else str(position)
                        yield ServerSentEvent(data=event_to_json(event), id=shown)
            finally:  # the turn is over, or its client left and it runs on: nobody reads its events now
                buffer.abandon()

        return sse_response(sent(), shutdown)

    @routes.post("/threads/{thread_id}/fork", status_code=201, response_model=TurnResult)
    def fork(thread_id: str, body: ForkThreadRequest) -> TurnResult:
        """Edit and run again from here: a new thread with the turns before ``turn`` and the edited message.

        The new thread's turn ``turn`` is a fork of the original turn's run, run here; the
        original thread is left as it was.
        """
        durable = ctx.durable(thread_of(ctx, thread_id).machine)
        new_id = body.thread_id or uuid.uuid4().hex
        forked = fork_thread(durable, ctx.store, thread_id, body.turn, body.message, new_id)
        return _result(ctx, durable, new_id, forked)

    return routes
