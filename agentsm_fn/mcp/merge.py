"""The tools of several MCP clients for one agent, refusing names that collide."""

from __future__ import annotations

from agentsm_fn.mcp.client import McpClient
from agentsm_fn.tools.registry import Tool

__all__ = ["mcp_tools"]


def mcp_tools(*clients: McpClient) -> tuple[Tool, ...]:
    """Every open client's tools, in order; raises ValueError naming every collision.

    Two servers often both have a ``search`` or ``read``: give each client a ``prefix``.

    Example:
        >>> from mcp.server.mcpserver import MCPServer
        >>> server = MCPServer("calc")
        >>> @server.tool()
        ... def add(a: int, b: int) -> int:
        ...     '''Add two integers.'''
        ...     return a + b
        >>> with McpClient.in_process(server) as one, McpClient.in_process(server) as two:
        ...     mcp_tools(one, two)
        Traceback (most recent call last):
        ...
        ValueError: tool names collide (give each client a prefix): 'add' (calc, calc)
    """
    owners: dict[str, list[str]] = {}
    tools: list[Tool] = []
    for client in clients:
        for tool in client.tools():
            owners.setdefault(tool.name, []).append(client.name)
            tools.append(tool)
    collisions = [f"{name!r} ({', '.join(names)})" for name, names in owners.items() if len(names) > 1]
    if collisions:
        raise ValueError("tool names collide (give each client a prefix): " + "; ".join(collisions))
    return tuple(tools)
