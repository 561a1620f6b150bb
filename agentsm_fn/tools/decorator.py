"""The ``@tool`` decorator: a JSON Schema derived from a typed function's signature and docstring.

Parameter types map to JSON Schema by :func:`~agentsm_fn.tools.schema.type_schema`
(scalars, lists and tuples, dicts, ``Literal`` and enums, optionals and unions, and
attrs classes and TypedDicts as nested objects). Parameters without a default are
required. The docstring's first paragraph is the description; a Google-style
``Args:`` section gives each parameter's description. An unsupported annotation
is a programmer error, raised at decoration time.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import overload

from agentsm_fn.llm.json import JsonValue
from agentsm_fn.tools.registry import Tool, ToolFn
from agentsm_fn.tools.schema import doc_parts, type_schema
from agentsm_fn.tools.spec import ToolDef

__all__ = ["schema_for", "tool"]


def schema_for(fn: Callable[..., object]) -> tuple[str, dict[str, JsonValue]]:
    """The description and JSON Schema of ``fn``'s keyword arguments.

    Example:
        >>> def search(query: str, limit: int = 5) -> str:
        ...     '''Search the web.
        ...
        ...     Args:
        ...         query: What to look for.
        ...     '''
        ...     return query
        >>> description, schema = schema_for(search)
        >>> description, schema["required"], schema["properties"]["query"]["description"]
        ('Search the web.', ['query'], 'What to look for.')
    """
    hints = typing.get_type_hints(fn)
    description, docs = doc_parts(fn.__doc__ or "")
    properties: dict[str, JsonValue] = {}
    required: list[JsonValue] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if name not in hints:
            raise TypeError(f"@tool: parameter {fn.__name__}.{name} needs a type annotation")
        prop = type_schema(hints[name], f"{fn.__name__}.{name}")
        if name in docs:
            prop["description"] = docs[name]
        if param.default is param.empty:
            required.append(name)
        properties[name] = prop
    schema: dict[str, JsonValue] = {"type": "object", "properties": properties, "required": required}
    return description, schema


@overload
def tool(fn: ToolFn, /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    needs_approval: bool = False,
    timeout: float | None = None,
    retry_safe: bool = False,
) -> Callable[[ToolFn], Tool]: ...


def tool(
    fn: ToolFn | None = None,
    /,
    *,
    name: str | None = None,
    needs_approval: bool = False,
    timeout: float | None = None,
    retry_safe: bool = False,
) -> Tool | Callable[[ToolFn], Tool]:
    """Make a :class:`Tool` from a typed function: ``@tool`` or ``@tool(timeout=5, needs_approval=True)``.

    ``retry_safe=True`` declares that calling it twice is harmless (see ``ToolDef``).

    Example:
        >>> @tool(timeout=2.0)
        ... def add(a: int, b: int) -> int:
        ...     '''Add two integers.'''
        ...     return a + b
        >>> add.name, add.definition.timeout, sorted(add.definition.parameters["properties"])
        ('add', 2.0, ['a', 'b'])
        >>> add.fn(a=2, b=3)
        5
    """

    def wrap(f: ToolFn) -> Tool:
        description, schema = schema_for(f)
        definition = ToolDef(
            name=name or str(getattr(f, "__name__", "tool")),
            description=description,
            parameters=schema,
            needs_approval=needs_approval,
            timeout=timeout,
            retry_safe=retry_safe,
        )
        return Tool(definition, f)

    return wrap if fn is None else wrap(fn)
