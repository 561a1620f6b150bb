"""Why an MCP tool call failed, and why a client could not connect.

A tool call never raises out of a run. The MCP tool coroutine raises one of the
exceptions below, and the shell's tool runner (the one door every tool goes through)
turns it into a tool failure the model reads, ``ERROR: McpDisconnected: ...`` in the
ReAct agent and ``... raised McpDisconnected: ...`` in plan-and-execute::

    McpCallFailed            a call did not produce a result (base class)
    ├── McpDisconnected      the server went away (crashed, killed, closed the
    │                        connection) or this client was closed
    ├── McpServerError       the server answered with a protocol error, or with a
    │                        result that breaks the protocol or the tool's output schema
    ├── McpInvalidArguments  the arguments break the tool's input schema (nothing is sent)
    └── McpToolGone          the server no longer lists the tool (its list changed
                             after the agent was built)

An ``isError`` result is not an exception: the tool returns ``Failure(text)``, as a
Python tool reports an expected failure. A call that outlives its timeout raises the
builtin ``TimeoutError`` (the same observation as a Python tool that times out).

:class:`McpConnectError` is the one error raised to the caller: opening a client
(``open()``, ``with``, ``async with``) when the server cannot be started or reached,
before any run has begun.
"""

from __future__ import annotations

__all__ = [
    "McpCallFailed",
    "McpConnectError",
    "McpDisconnected",
    "McpInvalidArguments",
    "McpServerError",
    "McpToolGone",
]


class McpCallFailed(Exception):
    """An MCP tool call produced no result; the runner makes it a tool failure.

    Example:
        >>> str(McpDisconnected("server 'files' closed the connection"))
        "server 'files' closed the connection"
        >>> issubclass(McpDisconnected, McpCallFailed)
        True
    """


class McpDisconnected(McpCallFailed):
    """The server went away (crashed, killed, closed the connection), or the client was closed."""


class McpServerError(McpCallFailed):
    """The server answered with a protocol error or a malformed result."""


class McpInvalidArguments(McpCallFailed):
    """The arguments break the tool's input schema; nothing was sent."""


class McpToolGone(McpCallFailed):
    """The server no longer lists the tool."""


class McpConnectError(ConnectionError):
    """The server could not be started, reached or initialized (raised when a client opens).

    Example:
        >>> isinstance(McpConnectError("no such command: mcp-files"), ConnectionError)
        True
    """
