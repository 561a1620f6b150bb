"""Where an MCP server is: a subprocess over stdio, a Streamable HTTP endpoint, or in this process.

A target is a frozen value; :class:`~agentsm_fn.mcp.McpClient` connects to it. Environment
variables and HTTP headers often carry keys, so they never appear in a repr, a
description or an error message.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TypeAlias
from urllib.parse import urlsplit

import attrs
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from agentsm_fn.shell.credentials import redact_values

__all__ = ["HttpTarget", "InProcessTarget", "McpTarget", "StdioTarget"]


def _strings(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(f"expected a sequence of strings, got the string {value!r}")
    return tuple(value)


def _read_only(value: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType(dict(value or {}))


_SHORTEST_SECRET = 4  # shorter values ("1", "on") are not worth hiding, and would mangle every message


@attrs.frozen(kw_only=True)
class StdioTarget:
    """A server started as a subprocess (``command args...``), spoken to over its stdin and stdout.

    ``env`` is added to a small safe default environment (``PATH``, ``HOME``, ...: the
    SDK's choice), never the whole of ours. The process is started when the client opens
    and stopped (stdin closed, then terminated) when it closes.

    Example:
        >>> target = StdioTarget(command="/usr/bin/node", args=("server.js",), env={"API_KEY": "k"})
        >>> target.describe(), "k" in repr(target)
        ('stdio server node', False)
    """

    command: str
    args: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_read_only, repr=False)
    cwd: str | None = None

    def describe(self) -> str:
        """The command's name (not its arguments or environment, which may hold keys)."""
        return f"stdio server {os.path.basename(self.command)}"

    def redact(self, text: str) -> str:
        """``text`` without the values of ``env`` (for messages about this server)."""
        return redact_values(text, self.env.values(), _SHORTEST_SECRET)


@attrs.frozen(kw_only=True)
class HttpTarget:
    """A server at a Streamable HTTP endpoint (``http://host:port/mcp``).

    Example:
        >>> target = HttpTarget(url="https://user:pw@example.com/mcp?token=t",
        ...                     headers={"Authorization": "Bearer t"})
        >>> target.describe(), "Bearer" in repr(target)
        ('http server https://example.com/mcp', False)
    """

    url: str = attrs.field(repr=lambda url: repr(_public_url(url)))
    headers: Mapping[str, str] = attrs.field(factory=dict, converter=_read_only, repr=False)

    def describe(self) -> str:
        """The endpoint without credentials or query."""
        return f"http server {_public_url(self.url)}"

    def redact(self, text: str) -> str:
        """``text`` without header values, and with the endpoint's URL as :meth:`describe` shows it.

        Example:
            >>> target = HttpTarget(url="http://u:pw@h/mcp?k=secret", headers={"Authorization": "Bearer t0k"})
            >>> target.redact("401 for http://u:pw@h/mcp?k=secret with Bearer t0k")
            '401 for http://h/mcp with [redacted]'
        """
        text = text.replace(self.url, _public_url(self.url))
        parts = urlsplit(self.url)
        secrets = [*self.headers.values(), parts.password or "", parts.query]
        return redact_values(text, secrets, _SHORTEST_SECRET)


def _public_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _server(value: object) -> Server[object] | MCPServer:
    if not isinstance(value, Server | MCPServer):
        raise TypeError(f"InProcessTarget needs an mcp Server or MCPServer, got {type(value).__name__}")
    return value


@attrs.frozen
class InProcessTarget:
    """A server object of the ``mcp`` SDK in this process (tests, doctests, embedded servers).

    Example:
        >>> from mcp.server.mcpserver import MCPServer
        >>> InProcessTarget(MCPServer("calc")).describe()
        "in-process server 'calc'"
    """

    server: Server[object] | MCPServer = attrs.field(converter=_server)

    def describe(self) -> str:
        """The server's own name."""
        return f"in-process server {self.server.name!r}"

    def redact(self, text: str) -> str:
        """``text`` as it is (nothing of an in-process server is secret)."""
        return text


McpTarget: TypeAlias = StdioTarget | HttpTarget | InProcessTarget
"""Where a client finds its server."""
