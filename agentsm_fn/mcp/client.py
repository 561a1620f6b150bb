"""A client of one MCP server: its tools as ours, callable from any run, sync or async.

The client owns a small event loop thread (an anyio blocking portal) on which the MCP
session lives. Its tools are ordinary :class:`~agentsm_fn.tools.Tool` values whose
functions are coroutines handing each call to that thread, so the shell's tool runner runs
them like any async tool: schema checks before the call, timeouts, failures as
observations, parallel batches, approval, both agents, ``run`` and ``arun``. Because the
session is not tied to the caller's loop or thread, one client serves many concurrent runs.

Cancelling a call (its run is cancelled, or its timeout expires) cancels the request on the
server. When the server changes its tool list, the client lists the tools again: runs
started afterwards see the new list, a run already going keeps the tools it started with,
and a call to a tool the server dropped fails with ``McpToolGone``.

One idea over 300 lines: the one client class, its session's whole life (open, list, call,
relist, close) on one portal thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Future
from types import MappingProxyType, TracebackType
from typing import TextIO, TypedDict, Unpack

import mcp_types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from returns.result import Result

from agentsm_fn.mcp._session import McpHandshake, _Session
from agentsm_fn.mcp.errors import McpConnectError, McpDisconnected, McpInvalidArguments, McpToolGone
from agentsm_fn.mcp.listing import McpListing, McpTool, mcp_listing
from agentsm_fn.mcp.observations import result_outcome
from agentsm_fn.mcp.targets import HttpTarget, InProcessTarget, McpTarget, StdioTarget
from agentsm_fn.tools.registry import Tool, ToolRegistry

__all__ = ["McpClient", "McpOptions", "ToolsChanged"]

log = logging.getLogger("agentsm_fn.mcp")

ToolsChanged = Callable[[tuple[McpTool, ...]], object]
"""Called with the new tool list after the server changed it (on the client's loop thread)."""

_PREFIX = re.compile(r"[A-Za-z0-9_-]+")


class McpOptions(TypedDict, total=False):
    """The keyword options of :class:`McpClient` (for its ``stdio``/``http``/``in_process`` makers)."""

    name: str | None
    prefix: str | None
    needs_approval: bool | Collection[str]
    timeout: float | None
    on_tools_changed: ToolsChanged | None
    handshake: McpHandshake
    connect_timeout: float
    stderr: TextIO | None


def _problems(
    prefix: str | None, needs_approval: object, timeout: float | None, connect_timeout: float
) -> list[str]:
    problems = []
    if prefix is not None and not _PREFIX.fullmatch(prefix):
        problems.append(f"prefix must be letters, digits, '_' or '-', got {prefix!r}")
    if isinstance(needs_approval, str):
        problems.append(
            f"needs_approval takes True, False or a set of tool names, got the string {needs_approval!r}"
        )
    if timeout is not None and not timeout > 0:
        problems.append(f"timeout must be > 0 seconds or None, got {timeout!r}")
    if not connect_timeout > 0:
        problems.append(f"connect_timeout must be > 0 seconds, got {connect_timeout!r}")
    return problems


class McpClient:
    """A connection to one MCP server whose tools agents can use.

    Open it with ``with``, ``async with`` or :meth:`open`; :meth:`tools` then gives its
    tools as :class:`~agentsm_fn.tools.Tool` values for ``AgentBuilder.tools(...)``,
    :meth:`registry` a registry for ``AgentFSM(tools=...)``. ``prefix`` names the tools
    ``{prefix}_{name}`` (use one per server when an agent uses several); ``needs_approval``
    is True, False or the server's names of the tools a human must approve; ``timeout`` (s)
    bounds each call (None: no limit). Opening raises :class:`McpConnectError` when the
    server cannot be started or reached; after that, nothing a server does raises.

    Example:
        >>> from mcp.server.mcpserver import MCPServer
        >>> server = MCPServer("calc")
        >>> @server.tool()
        ... def add(a: int, b: int) -> int:
        ...     '''Add two integers.'''
        ...     return a + b
        >>> with McpClient.in_process(server, prefix="calc") as calc:
        ...     [tool.name for tool in calc.tools()]
        ['calc_add']
    """

    def __init__(
        self,
        target: McpTarget,
        *,
        name: str | None = None,
        prefix: str | None = None,
        needs_approval: bool | Collection[str] = False,
        timeout: float | None = 60.0,
        on_tools_changed: ToolsChanged | None = None,
        handshake: McpHandshake = "auto",
        connect_timeout: float = 60.0,
        stderr: TextIO | None = None,
    ) -> None:
        problems = _problems(prefix, needs_approval, timeout, connect_timeout)
        if problems:
            raise ValueError("McpClient: " + "; ".join(problems))
        self.target = target
        self._name = name
        self.prefix = prefix
        self.needs_approval: bool | frozenset[str] = (
            needs_approval if isinstance(needs_approval, bool) else frozenset(needs_approval)
        )
        self.timeout = timeout
        self.on_tools_changed = on_tools_changed
        self.handshake: McpHandshake = handshake
        self.connect_timeout = connect_timeout
        self.stderr = stderr
        self._lock = threading.Lock()
        self._portal: BlockingPortal | None = None
        self._stack: contextlib.ExitStack | None = None
        self._session: _Session | None = None
        self._loop_thread: int | None = None  # the thread of the client's loop, while open
        self._server_name = ""
        self._listing = McpListing(tools=())
        self._tools: tuple[Tool, ...] = ()
        self._current: Mapping[str, McpTool] = MappingProxyType({})

    @classmethod
    def stdio(
        cls,
        command: str,
        *args: str,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        **options: Unpack[McpOptions],
    ) -> McpClient:
        """A client of a server we start as ``command args...`` and speak to over stdio.

        Example:
            >>> McpClient.stdio("node", "server.js", prefix="files")
            McpClient(stdio server node, prefix='files', closed)
        """
        return cls(StdioTarget(command=command, args=args, env=env or {}, cwd=cwd), **options)

    @classmethod
    def http(
        cls, url: str, *, headers: Mapping[str, str] | None = None, **options: Unpack[McpOptions]
    ) -> McpClient:
        """A client of the server at a Streamable HTTP endpoint (``headers``: e.g. authorization).

        Example:
            >>> McpClient.http("http://127.0.0.1:8000/mcp", headers={"Authorization": "Bearer k"})
            McpClient(http server http://127.0.0.1:8000/mcp, prefix=None, closed)
        """
        return cls(HttpTarget(url=url, headers=headers or {}), **options)

    @classmethod
    def in_process(cls, server: object, **options: Unpack[McpOptions]) -> McpClient:
        """A client of an ``mcp`` SDK server object in this process (``MCPServer`` or ``Server``)."""
        return cls(InProcessTarget(server), **options)

    def __repr__(self) -> str:
        state = "open" if self._portal is not None else "closed"
        return f"McpClient({self.target.describe()}, prefix={self.prefix!r}, {state})"

    @property
    def name(self) -> str:
        """The name given, else the server's own name (once connected), else a description of the target."""
        return self._name or self._server_name or self.target.describe()

    @property
    def is_open(self) -> bool:
        """True between a successful open and the close."""
        return self._portal is not None

    # ---- lifecycle ---------------------------------------------------------------------------------------

    def open(self) -> McpClient:
        """Connect (start the server process for stdio) and list its tools; raises McpConnectError."""
        with self._lock:
            if self._portal is not None:
                raise RuntimeError(f"{self!r} is already open")
            stack = contextlib.ExitStack()
            portal = stack.enter_context(start_blocking_portal(name="agentsm-mcp"))
            session = portal.call(self._new_session)
            ready: Future[tuple[types.Tool, ...]] = Future()
            serving = portal.start_task_soon(session.serve, ready)
            try:
                ready.result(timeout=self.connect_timeout)  # the tools are listed (by _listed) by then
            except BaseException as exc:
                serving.cancel()
                _stop(portal, stack)
                if isinstance(exc, McpConnectError):
                    raise
                if isinstance(exc, TimeoutError):
                    message = f"{self.target.describe()}: no answer within {self.connect_timeout}s"
                    raise McpConnectError(message) from None
                raise
            self._portal, self._stack, self._session = portal, stack, session
            self._loop_thread = portal.call(threading.get_ident)
        return self

    def _new_session(self) -> _Session:  # runs on the client's loop (anyio events need one)
        return _Session(self.target, handshake=self.handshake, stderr=self.stderr, on_listed=self._listed)

    def close(self) -> None:
        """Close the connection (stop a stdio server); calls still running fail with McpDisconnected."""
        with self._lock:
            portal, stack, session = self._portal, self._stack, self._session
            self._portal = self._stack = self._session = None
        if portal is None or stack is None or session is None:
            return
        if threading.get_ident() == self._loop_thread:
            # Called on the client's own loop (from on_tools_changed): stopping that loop waits for the
            # callback to return, so the rest happens in a thread of its own. The client is closed already.
            threading.Thread(
                target=self._shut, args=(portal, stack, session), name="agentsm-mcp-close", daemon=True
            ).start()
            return
        self._shut(portal, stack, session)

    def _shut(self, portal: BlockingPortal, stack: contextlib.ExitStack, session: _Session) -> None:
        try:
            portal.call(session.shutdown)
        except Exception as exc:  # closing must not fail; the loop is stopped below either way
            log.warning("closing the MCP client of %s: %s", self.target.describe(), session.why(exc))
        _stop(portal, stack)

    def __enter__(self) -> McpClient:
        return self.open()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> McpClient:
        opening = asyncio.ensure_future(asyncio.to_thread(self.open))
        try:
            return await asyncio.shield(opening)
        except asyncio.CancelledError:  # the opening goes on in its thread: close what it opens
            opening.add_done_callback(self._close_if_opened)
            raise

    def _close_if_opened(self, opening: asyncio.Future[McpClient]) -> None:
        if not opening.cancelled() and opening.exception() is None:
            threading.Thread(target=self.close, name="agentsm-mcp-close", daemon=True).start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.close)

    # ---- the tools ---------------------------------------------------------------------------------------

    def _require_open(self) -> None:
        if self._portal is None:
            raise RuntimeError(f"{self!r} is not open: use `with`, `async with` or .open() first")

    def tools(self) -> tuple[Tool, ...]:
        """The server's tools as ours, as last listed (for ``AgentBuilder.tools(*client.tools())``)."""
        self._require_open()
        return self._tools

    def registry(self) -> ToolRegistry:
        """The tools as a registry (for ``AgentFSM(tools=client.registry())``)."""
        return ToolRegistry({tool.name: tool for tool in self.tools()})

    def listing(self) -> McpListing:
        """The last listing: each tool with its server name, output schema and hints; what was left out."""
        self._require_open()
        return self._listing

    def _listed(self, session: _Session, tools: tuple[types.Tool, ...], announce: bool) -> None:
        """Take a listing (on the client's loop): the first when connected, then after each change."""
        self._server_name = session.server_name
        listing = mcp_listing(
            self.name, tools, prefix=self.prefix, needs_approval=self.needs_approval, timeout=self.timeout
        )
        self._listing = listing
        self._current = MappingProxyType(dict(listing.by_remote_name()))
        self._tools = tuple(Tool(tool.definition, self._function(tool)) for tool in listing.tools)
        callback = self.on_tools_changed
        if announce and callback is not None:
            try:
                callback(listing.tools)
            except Exception:  # a broken callback must not stop the client following changes
                log.exception("on_tools_changed raised")

    def _function(self, tool: McpTool) -> Callable[..., object]:
        async def call_mcp_tool(**arguments: object) -> Result[str, str]:
            return await self._call(tool, arguments)

        call_mcp_tool.__qualname__ = f"mcp[{tool.server}].{tool.remote_name}"
        return call_mcp_tool

    async def _call(self, tool: McpTool, arguments: dict[str, object]) -> Result[str, str]:
        problems = tool.definition.argument_problems(arguments)
        if problems is not None:
            raise McpInvalidArguments(f"arguments do not match the schema: {problems}")
        portal, session = self._portal, self._session
        if portal is None or session is None:
            raise McpDisconnected(f"the MCP client {self.name!r} is not open")
        if tool.remote_name not in self._current:
            raise McpToolGone(f"{self.name!r} no longer offers the tool {tool.remote_name!r}")
        try:
            future = portal.start_task_soon(
                session.call, tool.remote_name, arguments, tool.definition.timeout
            )
        except RuntimeError:  # the loop stopped in between: the client was closed
            raise McpDisconnected(f"the MCP client {self.name!r} was closed") from None
        try:
            result = await asyncio.wrap_future(future)  # cancelling this task cancels the call
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            raise McpDisconnected(f"the MCP client {self.name!r} was closed during the call") from None
        return result_outcome(result)


def _stop(portal: BlockingPortal, stack: contextlib.ExitStack) -> None:
    """Cancel whatever still runs on the client's loop, stop it and join its thread."""
    with contextlib.suppress(RuntimeError):  # already stopped
        portal.call(portal.stop, True)
    stack.close()
