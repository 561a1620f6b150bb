"""The ``@tool`` decorator: a JSON Schema derived from a typed function's signature and docstring.

Parameter types map to JSON Schema (``str`` string, ``int`` integer, ``float``
number, ``bool`` boolean, ``list[X]`` / ``tuple[X, ...]`` array, ``dict`` object,
``Literal[...]`` enum, ``X | None`` optional). Parameters without a default are
required. The docstring's first paragraph is the description; a Google-style
``Args:`` section gives each parameter's description. An unsupported annotation
is a programmer error, raised at decoration time.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Literal, overload

from agentsm_fn.llm.json import JsonValue
from agentsm_fn.tools.registry import Tool, ToolFn
from agentsm_fn.tools.spec import ToolDef

__all__ = ["schema_for", "tool"]

_SCALARS: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _type_schema(annotation: object, where: str) -> dict[str, JsonValue]:
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return {"enum": list(args)}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [m.value for m in annotation]}
    if origin in (list, tuple, typing.Sequence) or annotation in (list, tuple):
        items = [a for a in args if a is not Ellipsis]
        if items:
            return {"type": "array", "items": _type_schema(items[0], where)}
        return {"type": "array"}
    if origin is dict or annotation is dict:
        return {"type": "object"}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return _type_schema(rest[0], where)
        return {"anyOf": [_type_schema(a, where) for a in rest]}
    raise TypeError(f"@tool: parameter {where} has an annotation JSON Schema cannot express: {annotation!r}")


def _doc_parts(doc: str) -> tuple[str, dict[str, str]]:
    text = inspect.cleandoc(doc)
    description = text.split("\n\n", 1)[0].replace("\n", " ").strip()
    params: dict[str, str] = {}
    match = re.search(r"^Args:\s*\n((?:[ \t]+.*\n?)+)", text, flags=re.MULTILINE)
    if match:
        current = ""
        for line in match.group(1).splitlines():
            head = re.match(r"\s+(\w+)(?:\s*\([^)]*\))?:\s*(.*)", line)
            if head and (len(line) - len(line.lstrip())) <= 4:
                current = head.group(1)
                params[current] = head.group(2).strip()
            elif current:
                params[current] = f"{params[current]} {line.strip()}".strip()
    return description, params


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
    description, docs = _doc_parts(fn.__doc__ or "")
    properties: dict[str, JsonValue] = {}
    required: list[JsonValue] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if name not in hints:
            raise TypeError(f"@tool: parameter {fn.__name__}.{name} needs a type annotation")
        prop = _type_schema(hints[name], f"{fn.__name__}.{name}")
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
