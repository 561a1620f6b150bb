"""The async half of a client: one MCP session living on the client's own event loop thread.

Everything here runs on that loop (anyio, as the SDK). :meth:`_Session.serve` connects,
lists the tools, follows list changes and holds the connection until it is told to stop;
:meth:`_Session.call` runs one tool call there. Every way a call can fail becomes one of
the exceptions of :mod:`agentsm_fn.mcp.errors` (the one place SDK and transport errors are
translated); cancelling a call's task cancels the request (the SDK sends
``notifications/cancelled``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AsyncExitStack
from typing import Any, Literal, TextIO

import anyio
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client import Transport
from mcp.client.session import IncomingMessage, MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from agentsm_fn.mcp.errors import McpConnectError, McpDisconnected, McpServerError
from agentsm_fn.mcp.targets import HttpTarget, InProcessTarget, McpTarget, StdioTarget
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["McpHandshake"]

log = logging.getLogger("agentsm_fn.mcp")

McpHandshake = Literal["auto", "legacy"]
"""How to agree on a protocol version: ``auto`` (discover, falling back to the initialize
handshake) or ``legacy`` (the initialize handshake of protocol versions before 2026-07-28)."""

_PAGE_CAP = 100  # a server whose tool list never ends cannot hang a listing


def _describe(exc: BaseException) -> str:
    """An exception as one line, looking inside exception groups (anyio task groups raise them)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in exc.exceptions)
    if isinstance(exc, MCPError):
        return f"{exc.error.message} (code {exc.error.code})"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def _sdk_client(
    stack: AsyncExitStack,
    target: McpTarget,
    handshake: McpHandshake,
    stderr: TextIO | None,
    on_message: MessageHandlerFnT,
) -> Client:
    """The SDK's client for ``target``, entered on ``stack`` (which closes what it opened)."""
    server: Server[Any] | MCPServer | Transport  # what the SDK's Client connects to
    match target:
        case StdioTarget():
            params = StdioServerParameters(
                command=target.command, args=list(target.args), env=dict(target.env) or None, cwd=target.cwd
            )
            server = stdio_client(params, errlog=stderr or sys.stderr)
        case HttpTarget():
            http = None
            if target.headers:  # the SDK's default HTTP client, with the headers
                timeout = httpx2.Timeout(30.0, read=300.0)
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(headers=dict(target.headers), timeout=timeout)
                )
            server = streamable_http_client(target.url, http_client=http)
        case InProcessTarget():
            server = target.server
    client = Client(server, mode=handshake, message_handler=on_message, cache=None)
    return await stack.enter_async_context(client)


class _Session:
    """One connection's state on the client's loop; created per ``open``."""

    def __init__(
        self,
        target: McpTarget,
        *,
        handshake: McpHandshake,
        stderr: TextIO | None,
        on_listed: Callable[[_Session, tuple[types.Tool, ...], bool], None],
    ) -> None:
        self.target = target
        self.handshake = handshake
        self.stderr = stderr
        self.on_listed = on_listed
        self.client: Client | None = None
        self.server_name = ""
        self.gone: str | None = None  # why the connection ended, once it has
        self.closing = False
        self.stop = anyio.Event()
        self.stopped = anyio.Event()
        self.dirty = anyio.Event()

    async def serve(self, ready: Future[tuple[types.Tool, ...]]) -> None:
        """Connect, list the tools (``ready``), follow list changes, hold on until ``stop``."""
        try:
            async with AsyncExitStack() as stack:
                client = await _sdk_client(stack, self.target, self.handshake, self.stderr, self._on_message)
                tools = await self._list(client)
                self.client = client
                info = client.server_info
                self.server_name = info.name if info is not None else ""
                self.on_listed(self, tools, False)  # before any change can be announced
                ready.set_result(tools)
                async with anyio.create_task_group() as group:
                    group.start_soon(self._refresh, client)
                    capabilities = client.server_capabilities.tools
                    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
                    if modern and capabilities is not None and capabilities.list_changed:
                        group.start_soon(self._listen, client)
                    await self.stop.wait()
                    group.cancel_scope.cancel()
        except Exception as exc:  # the connection failed or broke: tell the waiters, keep the reason
            self.gone = self.why(exc)
            if not ready.done():
                ready.set_exception(McpConnectError(f"{self.target.describe()}: {self.gone}"))
        finally:
            self.client = None
            if not ready.done():  # cancelled before it was ready
                ready.set_exception(McpConnectError(f"{self.target.describe()}: the client was closed"))
            self.stopped.set()

    async def shutdown(self) -> None:
        """Stop serving: close the connection (stdio: the server process is stopped) and wait for it."""
        self.closing = True
        self.stop.set()
        await self.stopped.wait()

    async def _list(self, client: Client) -> tuple[types.Tool, ...]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(_PAGE_CAP):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tuple(tools)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.dirty.set()  # the refresher lists again; the receive loop must not wait for it
        elif isinstance(message, Exception):
            log.debug("MCP transport error from %s: %s", self.target.describe(), self.why(message))

    async def _refresh(self, client: Client) -> None:
        while True:
            await self.dirty.wait()
            self.dirty = anyio.Event()  # a change announced while listing lists again
            try:
                tools = await self._list(client)
            except Exception as exc:  # a broken connection: calls will say so
                log.warning("could not list the tools of %s again: %s", self.target.describe(), self.why(exc))
                continue
            self.on_listed(self, tools, True)

    async def _listen(self, client: Client) -> None:
        """At protocol 2026-07-28 list changes arrive on a ``subscriptions/listen`` stream only."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self.dirty.set()
        except Exception as exc:  # the stream is lost: the session goes on without change events
            log.warning("stopped following the tool list of %s: %s", self.target.describe(), self.why(exc))

    def why(self, exc: BaseException) -> str:
        """The exception as one line, without the target's secrets (they may be in a transport's message).

        Nor ours: the credentials of this process's environment go too (``redact_credentials``).
        """
        return redact_credentials(self.target.redact(_describe(exc)))

    def _gone(self, detail: str) -> McpDisconnected:
        if self.closing:
            return McpDisconnected(f"the MCP client of {self.target.describe()} was closed")
        return McpDisconnected(f"{self.target.describe()} closed the connection: {self.gone or detail}")

    async def call(
        self, name: str, arguments: dict[str, object], timeout: float | None
    ) -> types.CallToolResult:
        """Call the server's tool ``name``; an error of :mod:`agentsm_fn.mcp.errors` or ``TimeoutError``."""
        client = self.client
        if client is None:
            raise self._gone("not connected")
        with anyio.move_on_after(timeout) as scope:
            try:
                return await client.call_tool(name, arguments)
            except MCPError as exc:
                if exc.error.code == types.CONNECTION_CLOSED:
                    raise self._gone(self.why(exc)) from None
                raise McpServerError(self.why(exc)) from None
            except (ValidationError, RuntimeError) as exc:  # a malformed result, or one breaking its schema
                raise McpServerError(self.why(exc)) from None
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
                raise self._gone(self.why(exc)) from None
        if scope.cancelled_caught:
            raise TimeoutError(f"no result within {timeout}s")
        raise AssertionError("unreachable: the call returned, raised or timed out")  # pragma: no cover
