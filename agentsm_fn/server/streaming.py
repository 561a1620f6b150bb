"""Every streaming response of the server, in one place: a stream whose client left stops writing at once.

Every route that streams answers through this module: a run's events (``GET /runs/{id}/events``),
every run's changes (``GET /events``) and an AG-UI run (``POST /agui/{name}``). A new streaming
route (a thread's stream, say) answers with :func:`sse_response` or :func:`streamed_response` too,
and so gets all of this without doing anything.

A stream's items are often ready together: a client that comes back with ``Last-Event-ID`` is sent
what it missed, a run that moved many steps between two looks gives them at once, an AG-UI run
hands over a batch. Sent one after another without the event loop getting a turn, they left the
server no way to see that the client had gone: asyncio tells uvicorn a connection was lost by a
callback the loop runs later, so every write went to the closed socket, asyncio logged
"socket.send() raised exception." for each from the fifth on (about 425 lines per dropped
connection were measured), and every other connection waited meanwhile. Here the loop gets one turn
after each item is sent (:func:`while_listened`): the server reads the client's close, the
response's own disconnect watch (sse-starlette's, Starlette's) cancels the stream at that turn,
before its next write, and the stream's source is closed at once. Its ``finally`` runs: a run's
follower is let go when its last client leaves, an AG-UI run's feed is closed (the run goes on
without waiting for a client). docs/server.md has the figures, before and after.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TypeVar

import anyio.lowlevel
from fastapi.responses import StreamingResponse
from sse_starlette import EventSourceResponse, ServerSentEvent

from agentsm_fn.server.shutdown import PING_SECONDS, SHUTDOWN_GRACE, Shutdown

__all__ = ["sse_response", "streamed_response", "while_listened"]

T = TypeVar("T")


async def while_listened(items: AsyncGenerator[T, None]) -> AsyncGenerator[T, None]:
    """``items``, the event loop given a turn after each is sent; ``items`` closed as soon as this ends.

    Closed by its response (the client left, the server stops) or ended, it closes ``items``
    at once, so their ``finally`` runs then, not when the garbage collector finds them.

    Example:
        >>> import asyncio
        >>> async def numbers() -> AsyncGenerator[int, None]:
        ...     try:
        ...         for n in range(5):
        ...             yield n
        ...     finally:
        ...         print("source closed")
        >>> async def first_two() -> list[int]:
        ...     got = []
        ...     async with aclosing(while_listened(numbers())) as stream:
        ...         async for n in stream:
        ...             got.append(n)
        ...             if len(got) == 2:
        ...                 break  # the client left
        ...     return got
        >>> asyncio.run(first_two())
        source closed
        [0, 1]
    """
    async with aclosing(items):
        async for item in items:
            yield item
            await anyio.lowlevel.checkpoint()  # a lost connection is seen here, before the next write


def sse_response(events: AsyncGenerator[ServerSentEvent, None], shutdown: Shutdown) -> EventSourceResponse:
    """``events`` as Server-Sent Events: stopped when the client leaves, pinging, ended with the server.

    When ``shutdown`` is set (the server stops), the stream has :data:`SHUTDOWN_GRACE`
    seconds to end by itself (see :mod:`agentsm_fn.server.shutdown`).

    Example:
        >>> import asyncio
        >>> async def none() -> AsyncGenerator[ServerSentEvent, None]:
        ...     return
        ...     yield
        >>> async def response() -> str | None:  # made on the server's loop, as a route makes it
        ...     return sse_response(none(), Shutdown()).media_type
        >>> asyncio.run(response())
        'text/event-stream'
    """
    return EventSourceResponse(
        while_listened(events),
        ping=PING_SECONDS,
        shutdown_event=shutdown.event(),
        shutdown_grace_period=SHUTDOWN_GRACE,
    )


def streamed_response(chunks: AsyncGenerator[str, None], media_type: str) -> StreamingResponse:
    """``chunks`` (encoded already: AG-UI's encoder makes them) as a response stopped when the client leaves.

    Example:
        >>> async def none() -> AsyncGenerator[str, None]:
        ...     return
        ...     yield
        >>> streamed_response(none(), "text/event-stream").media_type
        'text/event-stream'
    """
    return StreamingResponse(while_listened(chunks), media_type=media_type)
