"""The thin IO layer: send a wire request over httpx, sync or async, with retries.

Both the sync and the async paths are the same short loop around the pure codec
and the pure :class:`RetryPolicy`; every httpx exception is translated in one
place (:meth:`Transport.exception_failure`) and every error status in another
(:meth:`Transport.status_failure`). Sleep, async sleep, clock and the jitter's
random draw are injected, so tests never wait.

One idea over 300 lines: the one class that sends, its four loops (one-shot and
streamed, sync and async) kept side by side so a reader can check they agree.

Failure mapping::

    httpx.TimeoutException      -> TIMEOUT
    httpx.HTTPError (others)    -> CONNECTION
    httpx.InvalidURL            -> CONFIGURATION
    status >= 400               -> HTTP_STATUS (status, server message, key redacted)
    error inside a 200 stream   -> STREAM_ERROR
    stream cut before its end   -> CONNECTION
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from contextlib import aclosing
from typing import cast

import attrs
import httpx
import httpx_sse

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers.codec import Codec, StreamDecoder, WireRequest
from agentsm_fn.providers.events import RetryScheduled, StreamCompleted, StreamEvent
from agentsm_fn.providers.retry import RetryPolicy
from agentsm_fn.providers.secrets import Secret, redact
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["Transport"]


async def _asyncio_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


@attrs.frozen(kw_only=True)
class Transport:
    """Where and how to send: base URL, codec, key, retry policy, timeouts, injected time.

    Example:
        >>> from agentsm_fn.providers.openai_codec import OpenAiCodec
        >>> t = Transport(codec=OpenAiCodec(), base_url="http://127.0.0.1:9/v1/", secret=Secret("sk-sentry"))
        >>> t.url(WireRequest(path="/chat/completions", body=b"{}"))
        'http://127.0.0.1:9/v1/chat/completions'
        >>> "sk-sentry" in repr(t)  # the key is never in the repr
        False
    """

    codec: Codec
    base_url: str
    secret: Secret = attrs.field(factory=lambda: Secret(""))
    policy: RetryPolicy = attrs.field(factory=RetryPolicy)
    timeout: float = 60.0
    connect_timeout: float = 10.0
    sleep: Callable[[float], None] = attrs.field(default=time.sleep, repr=False)
    asleep: Callable[[float], Awaitable[None]] = attrs.field(default=_asyncio_sleep, repr=False)
    clock: Callable[[], float] = attrs.field(default=time.time, repr=False)
    draw: Callable[[], float] = attrs.field(default=random.random, repr=False)

    # ---- pure helpers shared by every path ----------------------------------------------------------

    def url(self, wire: WireRequest) -> str:
        """The absolute URL of ``wire`` (base URL with or without a trailing slash)."""
        return self.base_url.rstrip("/") + wire.path

    def headers(self, wire: WireRequest) -> dict[str, str]:
        """Every header of ``wire``, the credential included (never logged, never kept)."""
        out = {"content-type": "application/json"}
        if wire.stream and self.codec.stream_format == "sse":
            out["accept"] = "text/event-stream"
        if wire.headers:
            out.update(wire.headers)
        out.update(self.codec.auth_headers(self.secret.reveal()))
        return out

    def httpx_timeout(self) -> httpx.Timeout:
        """The per-request timeout (made once: httpx only reads it)."""
        return self._timeout

    @functools.cached_property
    def _timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, connect=self.connect_timeout)

    def status_failure(self, status: int, body: bytes) -> LlmFailure:
        """The HTTP_STATUS failure for an error answer."""
        message = redact_credentials(redact(self.codec.error_message(body), self.secret))
        return LlmFailure(
            kind=LlmFailureKind.HTTP_STATUS, status=status, message=message, provider=self.codec.name
        )

    def exception_failure(self, exc: Exception) -> LlmFailure:
        """The one place httpx exceptions become failures."""
        if isinstance(exc, httpx.TimeoutException):
            kind = LlmFailureKind.TIMEOUT
        elif isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
            kind = LlmFailureKind.CONFIGURATION
        else:
            kind = LlmFailureKind.CONNECTION
        detail = redact_credentials(redact(str(exc), self.secret))[:300]
        message = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
        return LlmFailure(kind=kind, message=message, provider=self.codec.name)

    def next_delay(self, retries: int, failure: LlmFailure, headers: Mapping[str, str]) -> float | None:
        """Seconds before the next attempt, or None to give up with ``failure``."""
        if failure.kind is LlmFailureKind.CONFIGURATION:
            return None
        return self.policy.delay(
            retries, status=failure.status, headers=headers, now=self.clock(), draw=self.draw()
        )

    # ---- one-shot requests ---------------------------------------------------------------------------

    def send(self, client: httpx.Client, request: LlmRequest) -> LlmOutcome:
        """Send ``request`` and decode the reply, retrying per the policy."""
        wire = self.codec.encode(request, stream=False)
        retries = 0
        while True:
            try:
                answer: httpx.Response | Exception = client.post(
                    self.url(wire),
                    content=wire.body,
                    headers=self.headers(wire),
                    timeout=self.httpx_timeout(),
                )
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                answer = exc
            settled = self._settle(request, answer, retries)
            if not isinstance(settled, float):
                return settled
            self.sleep(settled)
            retries += 1

    async def asend(self, client: httpx.AsyncClient, request: LlmRequest) -> LlmOutcome:
        """Async :meth:`send`."""
        wire = self.codec.encode(request, stream=False)
        retries = 0
        while True:
            try:
                answer: httpx.Response | Exception = await client.post(
                    self.url(wire),
                    content=wire.body,
                    headers=self.headers(wire),
                    timeout=self.httpx_timeout(),
                )
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                answer = exc
            settled = self._settle(request, answer, retries)
            if not isinstance(settled, float):
                return settled
            await self.asleep(settled)
            retries += 1

    def _settle(
        self, request: LlmRequest, answer: httpx.Response | Exception, retries: int
    ) -> LlmOutcome | float:
        """What one attempt of a one-shot request comes to: the outcome, or seconds to wait and retry."""
        headers: Mapping[str, str] = {}
        if isinstance(answer, Exception):
            failure = self.exception_failure(answer)
        elif answer.status_code < 400:
            return _attempts(self.codec.decode(request, answer.content), retries + 1)
        else:
            failure, headers = self.status_failure(answer.status_code, answer.content), answer.headers
        delay = self.next_delay(retries, failure, headers)
        return _attempts(failure, retries + 1) if delay is None else float(delay)

    # ---- streams -------------------------------------------------------------------------------------

    def stream(self, client: httpx.Client, request: LlmRequest) -> Iterator[StreamEvent]:
        """Events of a streamed reply; retries happen before the first byte only. Ends in StreamCompleted."""
        wire = self.codec.encode(request, stream=True)
        retries = 0
        while True:
            headers: Mapping[str, str] = {}
            try:
                with client.stream(
                    "POST",
                    self.url(wire),
                    content=wire.body,
                    headers=self.headers(wire),
                    timeout=self.httpx_timeout(),
                ) as response:
                    if response.status_code < 400:
                        decoder = self.codec.stream_decoder(request)
                        outcome = yield from self._read(response, request, decoder)
                        yield StreamCompleted(_attempts(outcome, retries + 1))
                        return
                    failure, headers = (
                        self.status_failure(response.status_code, response.read()),
                        response.headers,
                    )
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                failure = self.exception_failure(exc)
            delay = self.next_delay(retries, failure, headers)
            if delay is None:
                yield StreamCompleted(_attempts(failure, retries + 1))
                return
            yield RetryScheduled(attempt=retries + 1, delay=delay, reason=failure.describe())
            self.sleep(delay)
            retries += 1

    def _read(
        self, response: httpx.Response, request: LlmRequest, decoder: StreamDecoder
    ) -> Generator[StreamEvent, None, LlmOutcome]:
        # Returns the outcome; mid-stream transport errors end the stream, never retried.
        try:
            if not _is_stream(response, self.codec.stream_format):
                return self.codec.decode(request, response.read())
            for event, data in self._frames(response):
                yield from decoder.feed(event, data)
                if decoder.done:
                    break
        except (httpx.HTTPError, httpx_sse.SSEError) as exc:
            return self._mid_stream_failure(exc)
        return decoder.finish()

    def _frames(self, response: httpx.Response) -> Iterator[tuple[str, str]]:
        if self.codec.stream_format == "ndjson":
            for line in response.iter_lines():
                yield "", line
        else:
            for sse in httpx_sse.EventSource(response).iter_sse():
                yield sse.event if sse.event != "message" else "", sse.data

    async def astream(self, client: httpx.AsyncClient, request: LlmRequest) -> AsyncIterator[StreamEvent]:
        """Async :meth:`stream`."""
        wire = self.codec.encode(request, stream=True)
        retries = 0
        while True:
            headers: Mapping[str, str] = {}
            try:
                async with client.stream(
                    "POST",
                    self.url(wire),
                    content=wire.body,
                    headers=self.headers(wire),
                    timeout=self.httpx_timeout(),
                ) as response:
                    if response.status_code < 400:
                        decoder = self.codec.stream_decoder(request)
                        outcome: LlmOutcome | None = None
                        async with aclosing(self._aread(response, request, decoder)) as items:
                            async for item in items:  # closed here even if our consumer stops early
                                if isinstance(item, StreamCompleted):
                                    outcome = item.outcome
                                else:
                                    yield item
                        assert outcome is not None  # _aread always ends with StreamCompleted
                        yield StreamCompleted(_attempts(outcome, retries + 1))
                        return
                    body = await response.aread()
                    failure, headers = self.status_failure(response.status_code, body), response.headers
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                failure = self.exception_failure(exc)
            delay = self.next_delay(retries, failure, headers)
            if delay is None:
                yield StreamCompleted(_attempts(failure, retries + 1))
                return
            yield RetryScheduled(attempt=retries + 1, delay=delay, reason=failure.describe())
            await self.asleep(delay)
            retries += 1

    async def _aread(
        self, response: httpx.Response, request: LlmRequest, decoder: StreamDecoder
    ) -> AsyncGenerator[StreamEvent, None]:
        try:
            if not _is_stream(response, self.codec.stream_format):
                yield StreamCompleted(self.codec.decode(request, await response.aread()))
                return
            async with aclosing(self._aframes(response)) as frames:  # closed at the break, not by the GC
                async for event, data in frames:
                    for item in decoder.feed(event, data):
                        yield item
                    if decoder.done:
                        break
        except (httpx.HTTPError, httpx_sse.SSEError) as exc:
            yield StreamCompleted(self._mid_stream_failure(exc))
            return
        yield StreamCompleted(decoder.finish())

    async def _aframes(self, response: httpx.Response) -> AsyncGenerator[tuple[str, str], None]:
        """The stream's frames; closing this closes the generator it reads.

        An unclosed one is left to the event loop's finalizer: on a closing loop, a pending task.
        """
        if self.codec.stream_format == "ndjson":
            # httpx types aiter_lines an AsyncIterator; it is an async generator, which has aclose
            lines = cast("AsyncGenerator[str, None]", response.aiter_lines())
            async with aclosing(lines):
                async for line in lines:
                    yield "", line
        else:
            async with aclosing(httpx_sse.EventSource(response).aiter_sse()) as events:
                async for sse in events:
                    yield sse.event if sse.event != "message" else "", sse.data

    def _mid_stream_failure(self, exc: Exception) -> LlmFailure:
        failure = self.exception_failure(exc)
        return attrs.evolve(failure, message=f"stream interrupted: {failure.message}")


def _is_stream(response: httpx.Response, stream_format: str) -> bool:
    content_type = response.headers.get("content-type", "")
    if stream_format == "sse":
        return "text/event-stream" in content_type
    return "json" not in content_type or "ndjson" in content_type or "x-ndjson" in content_type


def _attempts(outcome: LlmOutcome, attempts: int) -> LlmOutcome:
    if isinstance(outcome, LlmFailure) and attempts != outcome.attempts:
        return attrs.evolve(outcome, attempts=attempts)
    return outcome
