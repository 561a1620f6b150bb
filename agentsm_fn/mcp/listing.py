"""A server's tool list as our tool definitions: names, schemas and the per-tool policy (pure).

Each MCP tool becomes an :class:`McpTool`: the server's name for it, the name the agent
sees (``{prefix}_{name}`` when the client has a prefix, with any character a provider
would refuse replaced by ``_``), and a :class:`~agentsm_fn.tools.ToolDef` carrying the
description, the input JSON Schema (arguments are checked against it before any call),
``needs_approval`` from the client's configuration and the client's timeout. The output
schema and the server's annotations are kept alongside. Two tools that would get the same
name, or a tool whose schema is not JSON, are left out, each with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping

import attrs
import mcp_types as types

from agentsm_fn.llm.json import JsonObject, freeze_object
from agentsm_fn.tools.spec import ToolDef

__all__ = ["McpListing", "McpTool", "agent_tool_name", "mcp_listing"]

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def agent_tool_name(prefix: str | None, name: str) -> str:
    """The name the agent sees for the server's tool ``name``.

    Providers accept ``[A-Za-z0-9_-]`` in tool names; anything else becomes ``_``.

    Example:
        >>> agent_tool_name("files", "read.file"), agent_tool_name(None, "get-sum")
        ('files_read_file', 'get-sum')
    """
    full = name if not prefix else f"{prefix}_{name}"
    return _NOT_ALLOWED.sub("_", full)


def _frozen_or_none(value: object) -> JsonObject | None:
    return None if value is None else freeze_object(value)


@attrs.frozen(kw_only=True)
class McpTool:
    """One tool of an MCP server, as the agent knows it.

    Example:
        >>> tool = McpTool(server="calc", remote_name="add",
        ...                definition=ToolDef(name="calc_add", description="Add"))
        >>> tool.name, tool.output_schema is None
        ('calc_add', True)
    """

    server: str
    remote_name: str
    definition: ToolDef
    output_schema: JsonObject | None = attrs.field(default=None, converter=_frozen_or_none)
    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None

    @property
    def name(self) -> str:
        """The name the agent sees (and the model calls)."""
        return self.definition.name


@attrs.frozen(kw_only=True)
class McpListing:
    """The tools taken from one listing, and the ones left out with the reason.

    Example:
        >>> McpListing(tools=(), skipped=("'a.b': its name 'a_b' is taken by 'a_b'",)).skipped[0][:6]
        "'a.b':"
    """

    tools: tuple[McpTool, ...]
    skipped: tuple[str, ...] = ()

    def by_remote_name(self) -> Mapping[str, McpTool]:
        """The tools by the server's names for them."""
        return {tool.remote_name: tool for tool in self.tools}


def _wants_approval(needs_approval: bool | Collection[str], name: str) -> bool:
    if isinstance(needs_approval, bool):
        return needs_approval
    return name in needs_approval


def mcp_listing(
    server: str,
    tools: Iterable[types.Tool],
    *,
    prefix: str | None = None,
    needs_approval: bool | Collection[str] = False,
    timeout: float | None = None,
) -> McpListing:
    """Our definitions of the tools a server lists (the first of two that share a name wins).

    ``needs_approval`` is True (every tool), False (none) or the server's names of the
    tools that need a human's approval.

    Example:
        >>> listed = [types.Tool(name="add", description="Add two integers",
        ...                      input_schema={"type": "object", "required": ["a", "b"]}),
        ...           types.Tool(name="rm", input_schema={"type": "object"})]
        >>> listing = mcp_listing("calc", listed, prefix="calc", needs_approval={"rm"}, timeout=5.0)
        >>> [(t.name, t.definition.needs_approval, t.definition.timeout) for t in listing.tools]
        [('calc_add', False, 5.0), ('calc_rm', True, 5.0)]
        >>> listing.tools[0].definition.argument_problems({"a": 1})
        "'b' is a required property"
    """
    taken: dict[str, str] = {}
    kept: list[McpTool] = []
    skipped: list[str] = []
    for tool in tools:
        name = agent_tool_name(prefix, tool.name)
        if name in taken:
            skipped.append(f"{tool.name!r}: its name {name!r} is taken by {taken[name]!r}")
            continue
        annotations = tool.annotations
        try:
            definition = ToolDef(
                name=name,
                description=tool.description or tool.title or "",
                parameters=tool.input_schema,
                needs_approval=_wants_approval(needs_approval, tool.name),
                timeout=timeout,
            )
            output_schema = _frozen_or_none(tool.output_schema)
        except (TypeError, ValueError) as exc:
            skipped.append(f"{tool.name!r}: its schema is not JSON ({exc})")
            continue
        taken[name] = tool.name
        kept.append(
            McpTool(
                server=server,
                remote_name=tool.name,
                definition=definition,
                output_schema=output_schema,
                title=tool.title or (annotations.title if annotations else None),
                read_only=annotations.read_only_hint if annotations else None,
                destructive=annotations.destructive_hint if annotations else None,
            )
        )
    return McpListing(tools=tuple(kept), skipped=tuple(skipped))
