"""One provider class for every protocol: a codec, a transport, and (owned or injected) httpx clients.

:class:`HttpProvider` implements both :class:`~agentsm_fn.llm.LlmProvider` and
:class:`~agentsm_fn.llm.AsyncLlmProvider`: ``complete``/``acomplete`` never raise.
With ``stream=True`` they read the reply as a stream and pass every
:data:`StreamEvent` to ``on_event`` as it arrives (the seed's ``output_tx``) and to the
run observing the call (``agentsm_fn.shell.report_delta``, which a run stream turns into
its text and tool-call argument deltas);
``stream``/``astream`` give the events as an iterator. ``performers()`` registers
the provider with the shell for :class:`~agentsm_fn.llm.LlmCall` effects.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import httpx

from agentsm_fn.llm.call import LlmCall, LlmRequest
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers.events import StreamCompleted, StreamEvent
from agentsm_fn.providers.transport import Transport
from agentsm_fn.shell.observing import report_delta
from agentsm_fn.shell.performers import Performers

__all__ = ["POOL_LIMITS", "EventSink", "HttpProvider"]

POOL_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=100)
"""The pool of a client the provider owns: 100 connections, all kept alive between calls.

(httpx's default keeps only 20 alive, so 100 concurrent runs would reconnect for every call.)
Inject your own client to choose otherwise."""

EventSink = Callable[[StreamEvent], None]
"""Receives stream events as they happen."""


class HttpProvider:
    """An LLM provider over httpx; give it clients to share pools, or let it own them.

    Example:
        >>> from agentsm_fn.providers.openai_codec import OpenAiCodec
        >>> from agentsm_fn.providers.secrets import Secret
        >>> p = HttpProvider(Transport(codec=OpenAiCodec(), base_url="http://h:9", secret=Secret("k")))
        >>> p
        HttpProvider(openai, base_url='http://h:9', stream=False)
        >>> from agentsm_fn.llm import LlmCall
        >>> p.performers().find_async(LlmCall(LlmRequest(model="m", messages=()))) is not None
        True
    """

    def __init__(
        self,
        transport: Transport,
        *,
        client: httpx.Client | None = None,
        async_client: httpx.AsyncClient | None = None,
        stream: bool = False,
        on_event: EventSink | None = None,
        missing_key: str = "",
    ) -> None:
        self.transport = transport
        self.missing_key = missing_key  # non-empty: calls fail at once with this configuration message
        self.streaming = stream
        self.on_event = on_event
        self._client = client
        self._owns_client = client is None
        self._async_client = async_client
        self._owns_async_client = async_client is None
        self._async_loop: asyncio.AbstractEventLoop | None = None

    def _not_configured(self) -> LlmFailure:
        return LlmFailure(
            kind=LlmFailureKind.CONFIGURATION, message=self.missing_key, provider=self.transport.codec.name
        )

    def __repr__(self) -> str:
        t = self.transport
        return f"HttpProvider({t.codec.name}, base_url={t.base_url!r}, stream={self.streaming})"

    # ---- clients --------------------------------------------------------------------------------------

    def _sync_client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(limits=POOL_LIMITS)
        return self._client

    def _aclient(self) -> httpx.AsyncClient:
        if not self._owns_async_client:
            assert self._async_client is not None  # injected at construction
            return self._async_client
        loop = asyncio.get_running_loop()
        if self._async_client is None or self._async_loop is not loop:
            # An owned async client belongs to one event loop; a new loop gets a new client.
            self._async_client, self._async_loop = httpx.AsyncClient(limits=POOL_LIMITS), loop
        return self._async_client

    def close(self) -> None:
        """Close the sync client if this provider created it."""
        if self._owns_client and self._client is not None:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        """Close the clients this provider created."""
        self.close()
        if self._owns_async_client and self._async_client is not None:
            await self._async_client.aclose()
            self._async_client = None

    def __enter__(self) -> HttpProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> HttpProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ---- the provider protocols -------------------------------------------------------------------------

    def complete(self, request: LlmRequest) -> LlmOutcome:
        """Send ``request``; the reply or a typed failure, never an exception."""
        if self.missing_key:
            return self._not_configured()
        if not self.streaming:
            return self.transport.send(self._sync_client(), request)
        outcome: LlmOutcome | None = None
        for event in self.stream(request):
            if isinstance(event, StreamCompleted):
                outcome = event.outcome
            else:
                report_delta(event)
                if self.on_event is not None:
                    self.on_event(event)
        assert outcome is not None  # every stream ends with StreamCompleted
        return outcome

    async def acomplete(self, request: LlmRequest) -> LlmOutcome:
        """Async :meth:`complete`."""
        if self.missing_key:
            return self._not_configured()
        if not self.streaming:
            return await self.transport.asend(self._aclient(), request)
        outcome: LlmOutcome | None = None
        async for event in self.astream(request):
            if isinstance(event, StreamCompleted):
                outcome = event.outcome
            else:
                report_delta(event)
                if self.on_event is not None:
                    self.on_event(event)
        assert outcome is not None  # every stream ends with StreamCompleted
        return outcome

    def stream(self, request: LlmRequest) -> Iterator[StreamEvent]:
        """The reply as events, ending with :class:`StreamCompleted`."""
        return self.transport.stream(self._sync_client(), request)

    def astream(self, request: LlmRequest) -> AsyncIterator[StreamEvent]:
        """The reply as async events, ending with :class:`StreamCompleted`."""
        return self.transport.astream(self._aclient(), request)

    def performers(self) -> Performers:
        """Performers for :class:`LlmCall` effects, sync (``run``) and async (``arun``)."""

        async def perform_async(effect: LlmCall) -> LlmOutcome:
            return await self.acomplete(effect.request)

        return (
            Performers()
            .on(LlmCall, lambda effect: self.complete(effect.request))
            .on_async(LlmCall, perform_async)
        )
