"""JSON Schema from Python types: the one derivation tool arguments and agent results share.

:func:`type_schema` maps an annotation to a JSON Schema: ``str`` string, ``int`` integer,
``float`` number, ``bool`` boolean, ``None`` null, ``list[X]`` / ``tuple[X, ...]`` /
``Sequence[X]`` array, ``frozenset[X]`` / ``set[X]`` array of unique items, ``dict`` object
(``dict[str, X]``: every value an X), ``Literal[...]`` and enums an ``enum``, ``X | None``
nullable, other unions ``anyOf``; an attrs class or a TypedDict is a nested object
(:func:`object_schema`: its fields, those without a default required, each described by the
class docstring's ``Attributes:`` section). Schemas are inlined (no ``$ref``), so the fast
argument check and every provider read them alike; a class that contains itself is refused.
An annotation JSON Schema cannot express is a programmer error: ``TypeError``, at once.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from collections.abc import Sequence
from typing import Literal

import attrs

from agentsm_fn.llm.json import JsonValue

__all__ = ["doc_parts", "is_object_type", "object_schema", "type_schema"]

_SCALARS: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAYS = (list, tuple, Sequence, typing.Sequence)
_SETS = (frozenset, set, typing.AbstractSet)


def doc_parts(doc: str, section: str = "Args") -> tuple[str, dict[str, str]]:
    """A docstring's first paragraph, and the descriptions of its Google-style ``section`` entries.

    Example:
        >>> doc_parts('''Add two numbers.
        ...
        ... Args:
        ...     a: The first.
        ... ''')
        ('Add two numbers.', {'a': 'The first.'})
    """
    text = inspect.cleandoc(doc)
    description = text.split("\n\n", 1)[0].replace("\n", " ").strip()
    params: dict[str, str] = {}
    match = re.search(rf"^{section}:\s*\n((?:[ \t]+.*\n?)+)", text, flags=re.MULTILINE)
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


def is_object_type(annotation: object) -> bool:
    """True for an attrs class or a TypedDict: the classes :func:`object_schema` describes.

    Example:
        >>> from typing import TypedDict
        >>> class Point(TypedDict):
        ...     x: int
        >>> is_object_type(Point), is_object_type(dict)
        (True, False)
    """
    return isinstance(annotation, type) and (attrs.has(annotation) or typing.is_typeddict(annotation))


def _nullable(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    kind, values = schema.get("type"), schema.get("enum")
    if isinstance(values, list):
        return {**schema, "enum": [*values, None]}
    if isinstance(kind, str) and "enum" not in schema:
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, tuple | list) and "enum" not in schema:
        return {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _hints(cls: type, extras: bool = False) -> dict[str, object]:
    try:
        return typing.get_type_hints(cls, include_extras=extras)
    except NameError as exc:
        message = (
            f"the annotations of {cls.__qualname__} cannot be read ({exc}): a class it names must be "
            "found from its module (not defined inside a function, under postponed annotations)"
        )
        raise TypeError(message) from exc


def _fields(cls: type) -> tuple[dict[str, object], set[str]]:
    hints = _hints(cls)
    if typing.is_typeddict(cls):
        # Read from the annotations, not ``__required_keys__``: under postponed annotations
        # (``from __future__ import annotations``) Python 3.11 counts a NotRequired key as required.
        marked = _hints(cls, extras=True)
        total = bool(getattr(cls, "__total__", True))
        required = {
            name
            for name, annotation in marked.items()
            if typing.get_origin(annotation) is typing.Required
            or (total and typing.get_origin(annotation) is not typing.NotRequired)
        }
        return dict(hints), required
    fields = [f for f in attrs.fields(cls) if f.init]
    names = {f.alias or f.name: f.name for f in fields}
    required = {alias for alias, name in names.items() if _has_no_default(cls, name)}
    return {alias: hints[name] for alias, name in names.items()}, required


def _has_no_default(cls: type, name: str) -> bool:
    field = getattr(attrs.fields(cls), name)
    return field.default is attrs.NOTHING


def object_schema(cls: type, where: str = "", _within: tuple[type, ...] = ()) -> dict[str, JsonValue]:
    """The JSON Schema of an attrs class or TypedDict: an object of its fields.

    Example:
        >>> @attrs.frozen(kw_only=True)
        ... class Line:
        ...     '''One invoice line.
        ...
        ...     Attributes:
        ...         sku: The article.
        ...     '''
        ...     sku: str
        ...     qty: int = 1
        >>> schema = object_schema(Line)
        >>> schema["required"], schema["properties"]["sku"], schema["description"]
        (['sku'], {'type': 'string', 'description': 'The article.'}, 'One invoice line.')
    """
    where = where or cls.__qualname__
    if cls in _within:
        raise TypeError(f"{where}: {cls.__qualname__} contains itself; JSON Schema here is inlined")
    described, docs = doc_parts(cls.__doc__ or "", "Attributes")
    hints, required = _fields(cls)
    properties: dict[str, JsonValue] = {}
    for name, annotation in hints.items():
        prop = type_schema(annotation, f"{where}.{name}", (*_within, cls))
        if name in docs:
            prop["description"] = docs[name]
        properties[name] = prop
    schema: dict[str, JsonValue] = {
        "type": "object",
        "properties": properties,
        "required": [name for name in hints if name in required],
    }
    if described and not described.startswith(f"{cls.__name__}("):  # attrs' generated doc says nothing
        schema["description"] = described
    return schema


def type_schema(annotation: object, where: str = "", _within: tuple[type, ...] = ()) -> dict[str, JsonValue]:
    """The JSON Schema of one annotation (``where`` names it in the error for one it cannot express).

    Example:
        >>> type_schema(list[int] | None)
        {'type': ['array', 'null'], 'items': {'type': 'integer'}}
        >>> type_schema(dict[str, float])
        {'type': 'object', 'additionalProperties': {'type': 'number'}}
    """
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if is_object_type(annotation):
        return object_schema(typing.cast(type, annotation), where, _within)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return {"enum": list(args)}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [m.value for m in annotation]}
    if origin in _ARRAYS or annotation in (list, tuple):
        items = [a for a in args if a is not Ellipsis]
        if len(items) > 1:  # a fixed-length tuple
            fixed = [type_schema(a, where, _within) for a in items]
            return {"type": "array", "prefixItems": fixed, "minItems": len(fixed), "maxItems": len(fixed)}
        if items:
            return {"type": "array", "items": type_schema(items[0], where, _within)}
        return {"type": "array"}
    if origin in _SETS or annotation in (frozenset, set):
        inner: dict[str, JsonValue] = {"type": "array", "uniqueItems": True}
        if args:
            inner["items"] = type_schema(args[0], where, _within)
        return inner
    if origin is dict or annotation is dict:
        if len(args) == 2 and args[0] is str:
            return {"type": "object", "additionalProperties": type_schema(args[1], where, _within)}
        return {"type": "object"}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            one = type_schema(rest[0], where, _within)
            return _nullable(one) if len(rest) < len(args) else one
        variants: list[JsonValue] = [type_schema(a, where, _within) for a in rest]
        if len(rest) < len(args):
            variants.append({"type": "null"})
        return {"anyOf": variants}
    raise TypeError(f"{where or 'a value'}: JSON Schema cannot express the annotation {annotation!r}")
