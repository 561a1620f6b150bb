"""The MCP server the tests talk to, written with the SDK's MCPServer (v1's FastMCP).

``python tests/mcp/server.py stdio`` serves over stdin/stdout; ``... http`` binds a free
port on 127.0.0.1, prints ``PORT <n>`` and serves Streamable HTTP at ``/mcp``. Tools that
the tests must watch report what happens to them on the socket named by
``AGENTSM_MCP_SIGNALS`` (``host:port``), one line per connection: ``started hang <tag>
<pid>``, ``cancelled hang <tag>``, ``called echo <text>``.
"""

from __future__ import annotations

import os
import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

server = MCPServer("agentsm-test")
_meetings: dict[str, tuple[int, anyio.Event]] = {}
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")


def signal(line: str) -> None:
    address = os.environ.get("AGENTSM_MCP_SIGNALS")
    if not address:
        return
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as conn:
        conn.sendall(line.encode() + b"\n")


class Weather(BaseModel):
    city: str
    celsius: int


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    signal(f"called echo {text}")
    return text


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of a header of the HTTP request that carried this call."""
    return (ctx.headers or {}).get(name.lower(), "none")


@server.tool()
def fail(message: str) -> str:
    """Always fail with the message (an ``isError`` result)."""
    raise ToolError(message)


@server.tool()
async def hang(tag: str) -> str:
    """Never return (until cancelled)."""
    signal(f"started hang {tag} {os.getpid()}")
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        signal(f"cancelled hang {tag}")
        raise
    return "unreachable"


@server.tool()
async def meet(group: str, size: int) -> str:
    """Return once ``size`` calls of ``group`` are running at the same time."""
    count, arrived = _meetings.get(group, (0, anyio.Event()))
    _meetings[group] = (count + 1, arrived)
    if count + 1 >= size:
        arrived.set()
    await arrived.wait()
    return f"{group}: met {size}"


@server.tool()
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def weather(city: str) -> Weather:
    """The weather in a city, as structured content."""
    return Weather(city=city, celsius=21)


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and announce the change."""

    def added(text: str) -> str:
        return f"{name}: {text}"

    server.add_tool(added, name=name, description=f"The tool {name}, added at run time")
    await _announce(ctx)
    return f"added {name}"


@server.tool()
async def shrink(name: str, ctx: Context) -> str:
    """Remove the tool called ``name`` and announce the change."""
    server.remove_tool(name)
    await _announce(ctx)
    return f"removed {name}"


async def _announce(ctx: Context) -> None:
    await ctx.notify_tools_changed()  # protocol 2026-07-28: subscriptions/listen streams
    await ctx.session.send_tool_list_changed()  # earlier versions: a notification (dropped at 2026-07-28)


def main(argv: list[str]) -> None:
    if argv[1:] == ["stdio"]:
        server.run("stdio")
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main(sys.argv)
