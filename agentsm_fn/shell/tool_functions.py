"""Plain Python functions as tools: the spec the model sees, the timeout, and the text of a result.

A tool is a function taking keyword arguments (the seed's ``->(query:) { ... }``)
and returning text, any JSON-serializable value, or ``Success(value)`` /
``Failure(message)``; ``agentsm_fn.tools.Tool`` values and a ``ToolRegistry`` work
too. The plan-and-execute agent (:mod:`agentsm_fn.shell.plan_execute_agent`) reads
its tools with these functions.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import get_type_hints

from returns.result import Success

from agentsm_fn.llm.json import JsonValue
from agentsm_fn.llm.messages import ToolSpec
from agentsm_fn.tools.decorator import schema_for
from agentsm_fn.tools.registry import Tool, ToolFn, ToolRegistry

__all__ = ["retry_safe_tools", "tool_registry", "tool_spec", "tool_text", "tool_timeouts"]

_JSON_TYPES: Mapping[object, str] = MappingProxyType(
    {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}
)


def _lenient_schema(fn: ToolFn) -> dict[str, JsonValue]:
    try:
        hints = get_type_hints(fn)
    except Exception:  # unresolvable annotations: fall back to untyped parameters
        hints = {}
    properties: dict[str, JsonValue] = {}
    required: list[JsonValue] = []
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: any object will do
        return {"type": "object"}
    for param in parameters:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            continue
        kind = _JSON_TYPES.get(hints.get(param.name))
        properties[param.name] = {"type": kind} if kind else {}
        if param.default is param.empty:
            required.append(param.name)
    return {"type": "object", "properties": properties, "required": required}


def tool_spec(name: str, fn: ToolFn) -> ToolSpec:
    """The spec the model sees, read from the function's signature and docstring.

    Typed functions get the ``@tool`` decorator's schema (``agentsm_fn.tools``);
    untyped ones (a lambda, say) get one property per keyword parameter.

    Example:
        >>> def search(query: str, limit: int = 5) -> str:
        ...     '''Search the web.'''
        ...     return query
        >>> spec = tool_spec("search", search)
        >>> spec.description, dict(spec.parameters["properties"]["limit"]), list(spec.parameters["required"])
        ('Search the web.', {'type': 'integer'}, ['query'])
        >>> list(tool_spec("read", lambda url: url).parameters["required"])
        ['url']
        >>> len(tool_spec("size", len).parameters["properties"])  # positional-only: nothing to offer
        0
    """
    try:
        description, schema = schema_for(fn)
    except (TypeError, NameError, ValueError):
        description, schema = "", _lenient_schema(fn)
    return ToolSpec(name, description or f"The {name} tool.", schema)


def tool_registry(
    tools: Mapping[str, ToolFn | Tool] | ToolRegistry,
) -> tuple[Mapping[str, ToolFn], tuple[ToolSpec, ...]]:
    """Functions by name and the specs the model sees, from plain functions, ``Tool`` values or a registry.

    Example:
        >>> fns, specs = tool_registry({"search": lambda query: query})
        >>> list(fns), specs[0].name
        (['search'], 'search')
    """
    entries = [(t.name, t) for t in tools] if isinstance(tools, ToolRegistry) else list(tools.items())
    functions: dict[str, ToolFn] = {}
    specs: list[ToolSpec] = []
    for name, entry in entries:
        if isinstance(entry, Tool):
            functions[name] = entry.fn
            definition = entry.definition.spec
            specs.append(ToolSpec(name, definition.description, definition.parameters))
        else:
            functions[name] = entry
            specs.append(tool_spec(name, entry))
    return MappingProxyType(functions), tuple(specs)


def tool_text(value: object) -> str:
    """A tool's return value as the text the model reads (JSON for structured values).

    Example:
        >>> tool_text({"results": "Search results for: pdf"}), tool_text("plain"), tool_text(None)
        ('{"results": "Search results for: pdf"}', 'plain', '')
    """
    if value is None:
        return ""
    if isinstance(value, Success):
        return tool_text(value.unwrap())
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def retry_safe_tools(tools: Mapping[str, ToolFn | Tool] | ToolRegistry) -> frozenset[str]:
    """The names of the tools declared retry-safe (``ToolDef.retry_safe``; plain functions are not).

    Example:
        >>> registry = ToolRegistry().register("read", "Read", {}, lambda: "", retry_safe=True)
        >>> sorted(retry_safe_tools(registry)), sorted(retry_safe_tools({"f": lambda: ""}))
        (['read'], [])
    """
    entries = [(t.name, t) for t in tools] if isinstance(tools, ToolRegistry) else list(tools.items())
    return frozenset(
        name for name, entry in entries if isinstance(entry, Tool) and entry.definition.retry_safe
    )


def tool_timeouts(tools: Mapping[str, ToolFn | Tool] | ToolRegistry) -> Mapping[str, float | None]:
    """Each tool's timeout in seconds (``ToolDef.timeout`` of ``Tool`` values; plain functions: none).

    Under ``arun`` a sync tool with a timeout runs in a thread (in a copy of the caller's
    contextvars context) so the wait can stop; without one it runs on the event loop's thread.

    Example:
        >>> registry = ToolRegistry().register("slow", "Slow", {}, lambda: "", timeout=2.5)
        >>> dict(tool_timeouts(registry)), dict(tool_timeouts({"f": lambda: ""}))
        ({'slow': 2.5}, {})
    """
    entries = [(t.name, t) for t in tools] if isinstance(tools, ToolRegistry) else list(tools.items())
    return MappingProxyType(
        {name: entry.definition.timeout for name, entry in entries if isinstance(entry, Tool)}
    )
