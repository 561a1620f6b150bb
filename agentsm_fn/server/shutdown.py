"""Server-Sent Event responses that end cleanly when the server shuts down.

An open event stream never ends by itself (a running run, the store-wide change stream).
When the ASGI server is told to stop (Ctrl-C, SIGTERM), sse-starlette notices and sets
each stream's shutdown event; the pollers the streams read from (:mod:`agentsm_fn.server.follow`)
watch the same :class:`Shutdown`, end their clients' streams, and each response
(:func:`~agentsm_fn.server.streaming.sse_response`) sends its last chunk within :data:`SHUTDOWN_GRACE`
seconds. Without this the server cut the streams off and uvicorn logged "ASGI callable returned
without completing response" for each.
"""

from __future__ import annotations

from typing import Final

import anyio

__all__ = ["PING_SECONDS", "SHUTDOWN_GRACE", "Shutdown"]

PING_SECONDS: Final = 15
"""A comment line this often keeps idle connections (proxies, load balancers) open."""

SHUTDOWN_GRACE: Final = 2.0
"""Seconds a stream has to end by itself once the server shuts down (a poller looks more often)."""


class Shutdown:
    """The server shutting down, as its event streams are told (one per router, shared by its streams).

    The event is made on the server's loop, when the first stream opens.

    Example:
        >>> import asyncio
        >>> async def told() -> tuple[bool, bool]:
        ...     shutdown = Shutdown()
        ...     before = shutdown.is_set()
        ...     shutdown.event().set()  # what sse-starlette does when the server stops
        ...     return before, shutdown.is_set()
        >>> asyncio.run(told())
        (False, True)
    """

    def __init__(self) -> None:
        self._event: anyio.Event | None = None

    def event(self) -> anyio.Event:
        """The event set when the server shuts down."""
        if self._event is None:
            self._event = anyio.Event()
        return self._event

    def is_set(self) -> bool:
        """True once the server is shutting down."""
        return self._event is not None and self._event.is_set()

    async def wait(self, seconds: float) -> bool:
        """Wait ``seconds``, or less if the server starts shutting down meanwhile; True if it does."""
        with anyio.move_on_after(seconds):
            await self.event().wait()
        return self.is_set()
