"""Tools from Model Context Protocol servers (the ``mcp`` extra: ``pip install 'agentsm-fn[mcp]'``).

:class:`McpClient` connects to a server (a subprocess over stdio, a Streamable HTTP
endpoint, or an SDK server object in this process) and gives its tools as ordinary
:class:`~agentsm_fn.tools.Tool` values, so every guarantee of Python tools holds for
them: arguments checked against the tool's schema before the call, failures (``isError``
results, timeouts, a server that crashes or disconnects) as observations the run goes on
from, blacklists, ``needs_approval`` and WaitingForHuman, parallel calls, both built-in
agents, ``run`` and ``arun``. See docs/mcp.md.

``import agentsm_fn`` never imports this package (nor the SDK).
"""

from agentsm_fn.mcp._session import McpHandshake
from agentsm_fn.mcp.client import McpClient, McpOptions, ToolsChanged
from agentsm_fn.mcp.errors import (
    McpCallFailed,
    McpConnectError,
    McpDisconnected,
    McpInvalidArguments,
    McpServerError,
    McpToolGone,
)
from agentsm_fn.mcp.listing import McpListing, McpTool, agent_tool_name, mcp_listing
from agentsm_fn.mcp.merge import mcp_tools
from agentsm_fn.mcp.observations import describe_block, result_outcome, result_text
from agentsm_fn.mcp.targets import HttpTarget, InProcessTarget, McpTarget, StdioTarget

__all__ = [
    "HttpTarget",
    "InProcessTarget",
    "McpCallFailed",
    "McpClient",
    "McpConnectError",
    "McpDisconnected",
    "McpHandshake",
    "McpInvalidArguments",
    "McpListing",
    "McpOptions",
    "McpServerError",
    "McpTarget",
    "McpTool",
    "McpToolGone",
    "StdioTarget",
    "ToolsChanged",
    "agent_tool_name",
    "describe_block",
    "mcp_listing",
    "mcp_tools",
    "result_outcome",
    "result_text",
]
