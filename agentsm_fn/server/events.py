"""``GET /runs/{run_id}/events``: a run's events as Server-Sent Events, resumable by ``Last-Event-ID``.

Each history event is sent with ``id:`` its position in the run (``RunStarted`` is 0, then one
per transition, effect request and effect outcome, as ``agentsm_fn.stream`` numbers them), and
``data:`` its JSON form (``event_to_json``); the events that say where the run stands
(``AwaitingOutcome``, ``Finished``, ``Failed``) carry no id. A client that reconnects with
``Last-Event-ID: n`` gets every event after position ``n`` and none before it. A finished or
failed run streams its whole history and where it ended, then the response ends; a running or
waiting one stays open and streams each event as the store shows it (see ``follow``), wherever
the run executes. A run's child runs (and theirs) stream with it: each of their events is sent as
``event: child`` with ``data:`` a ``ChildEvent``'s JSON form (the child's run id, its parent's, the
run's effect that started it, the child's event) and no id, after the run's history that came with
it, before where the run stands; a client that listens only to unnamed events (a browser's
``onmessage``) never sees them, and ``?children=false`` leaves them out. A client that comes back
is sent every child event again (tell them apart by the child's run id and its event's position).
If the run cannot be read, an ``event: error`` with the JSON error ends it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing

from fastapi import APIRouter, Header, Query
from sse_starlette import EventSourceResponse, ServerSentEvent

from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import ApiError, error_body, error_for
from agentsm_fn.server.follow import Followers
from agentsm_fn.server.runs import unwrapped
from agentsm_fn.server.shutdown import Shutdown
from agentsm_fn.server.streaming import sse_response
from agentsm_fn.stream.children import ChildEvent, child_event_to_json
from agentsm_fn.stream.events import RunEvent, history_position
from agentsm_fn.stream.wire import event_to_json

__all__ = ["event_routes", "last_seen"]


def last_seen(header: str | None, query: int | None) -> int:
    """The position the client saw last: ``Last-Event-ID`` (or ``?after=``), -1 for none.

    Example:
        >>> last_seen("7", None), last_seen(None, 3), last_seen(None, None)
        (7, 3, -1)
    """
    if header is None or not header.strip():
        return -1 if query is None else query
    text = header.strip()
    if not text.isdigit() or len(text) > 12:
        raise ApiError(422, "invalid_last_event_id", "Last-Event-ID is not an event id this server sent")
    return int(text)


def event_routes(ctx: ServerContext) -> APIRouter:
    """The run event stream over ``ctx.store`` (one follower per streamed run)."""
    routes = APIRouter(tags=["events"])
    shutdown = Shutdown()
    followers = Followers(ctx.store, ctx.poll_interval, shutdown, ctx.durables.get)

    @routes.get(
        "/runs/{run_id}/events",
        response_class=EventSourceResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "the run's events"}},
    )
    async def events(
        run_id: str,
        last_event_id: str | None = Header(default=None, max_length=20),
        after: int | None = Query(default=None, ge=-1, le=10**12),
        children: bool = Query(default=True),
    ) -> EventSourceResponse:
        """The run's events as Server-Sent Events (``id:`` its position; resume with ``Last-Event-ID``)."""
        seen = last_seen(last_event_id, after)
        record = unwrapped(ctx.store.get(run_id))
        durable = ctx.durable(record.machine)

        async def sent() -> AsyncGenerator[ServerSentEvent, None]:
            async with aclosing(
                followers.stream(durable, run_id, seen, children)
            ) as items:  # closed with the response
                async for item in items:
                    if isinstance(item, ChildEvent):
                        yield ServerSentEvent(data=child_event_to_json(item), event="child")
                    elif isinstance(item, RunEvent):
                        position = history_position(item)
                        shown = None if position is None else str(position)
                        yield ServerSentEvent(data=event_to_json(item), id=shown)
                    else:
                        refused = error_for(item)
                        body = json.dumps(error_body(refused.kind, refused.detail))
                        yield ServerSentEvent(data=body, event="error")

        return sse_response(sent(), shutdown)

    return routes
