"""A stand-in value codec until the project's own codecs (durable runs, item 3) land.

Tagged JSON, like ``agents/react/codec.py``, but classes are named by module and
qualified name, so two classes called ``ToolResult`` (the ReAct agent's and
plan-and-execute's) stay apart, and user classes need no registration: an attrs
class or an enum decodes if its module is already imported in the decoding process
(a worker imports the machines it runs, so their types are there). Nothing is
imported while decoding, and only attrs constructors and enum lookups run.

It implements :class:`agentsm_fn.temporal.payloads.ValueCodec`; the payload
converter depends on that protocol only, so swapping codecs changes one line.
"""

from __future__ import annotations

import base64
import enum
import json
import math
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, cast

import attrs
from pyrsistent import PMap, PSet, PVector, pmap, pset, pvector
from returns.result import Failure, Result, Success

__all__ = ["InterimCodec"]


class _Unencodable(ValueError):
    """A value of a type the codec does not know."""


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


_MODULES: Final[dict[str, object]] = getattr(sys.modules, "orig", sys.modules)
"""The process's own modules, not the sandbox's: inside a workflow Temporal's sandbox puts a
per-thread view (holding ``orig``) in ``sys.modules``, so a workflow decodes the classes its
machine uses, which live outside the sandbox (this package is passed through)."""


def _find(name: object) -> type:
    if not isinstance(name, str) or ":" not in name:
        raise ValueError(f"bad class name {name!r}")
    module_name, qualname = name.split(":", 1)
    found: object = _MODULES.get(module_name)
    if found is None:
        raise ValueError(f"unknown class {name} (its module is not imported in this process)")
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if not isinstance(found, type) or not (attrs.has(found) or issubclass(found, enum.Enum)):
        raise ValueError(f"unknown class {name} (not an attrs class or an enum)")
    return found


def _encode(value: object) -> object:
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        number = cast(float, value)
        return number if math.isfinite(number) else {"$float": repr(number)}
    if isinstance(value, enum.Enum):
        return {"$enum": _name(kind), "name": value.name}
    if attrs.has(kind):
        fields = {f.alias: _encode(getattr(value, f.name)) for f in attrs.fields(kind) if f.init}
        return {"$attrs": _name(kind), "fields": fields}
    if kind is tuple:
        return {"$tuple": [_encode(v) for v in cast(tuple[object, ...], value)]}
    if kind is list:
        return [_encode(v) for v in cast(list[object], value)]
    if isinstance(value, PVector):
        return {"$pvector": [_encode(v) for v in value]}
    if kind is frozenset or isinstance(value, PSet):
        items = sorted((_encode(v) for v in cast(frozenset[object], value)), key=json.dumps)
        return {"$pset" if isinstance(value, PSet) else "$frozenset": items}
    if isinstance(value, PMap):
        return {"$pmap": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if kind is dict or kind is MappingProxyType:
        pairs = [[_encode(k), _encode(v)] for k, v in cast(Mapping[object, object], value).items()]
        return {"$dict" if kind is dict else "$mapping": pairs}
    if kind is bytes:
        return {"$bytes": base64.b64encode(cast(bytes, value)).decode("ascii")}
    raise _Unencodable(f"cannot encode a {kind.__qualname__}")


def _list(data: Mapping[str, object], tag: str) -> list[object]:
    items = data[tag]
    if not isinstance(items, list):
        raise ValueError(f"{tag} needs a list")
    return items


def _pairs(data: Mapping[str, object], tag: str) -> list[tuple[object, object]]:
    pairs: list[tuple[object, object]] = []
    for item in _list(data, tag):
        if not isinstance(item, list) or len(item) != 2:
            raise ValueError("a mapping entry must be a [key, value] pair")
        pairs.append((_decode(item[0]), _decode(item[1])))
    return pairs


def _decode(data: object) -> object:
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [_decode(v) for v in data]
    if not isinstance(data, dict) or not data:
        raise ValueError(f"unexpected JSON {type(data).__name__}")
    tag = next(iter(data))
    if tag == "$attrs":
        cls = _find(data["$attrs"])
        fields = data.get("fields")
        if not attrs.has(cls) or not isinstance(fields, dict):
            raise ValueError(f"bad value of {cls.__qualname__}")
        return cls(**{str(k): _decode(v) for k, v in fields.items()})
    if tag == "$enum":
        cls = _find(data["$enum"])
        if not issubclass(cls, enum.Enum):
            raise ValueError(f"{cls.__qualname__} is not an enum")
        return cls[str(data.get("name"))]
    if tag in ("$tuple", "$pvector", "$frozenset", "$pset"):
        items = [_decode(v) for v in _list(data, tag)]
        match tag:
            case "$tuple":
                return tuple(items)
            case "$pvector":
                return pvector(items)
            case "$frozenset":
                return frozenset(items)
        return pset(items)
    if tag in ("$pmap", "$dict", "$mapping"):
        pairs = dict(_pairs(data, tag))
        return pmap(pairs) if tag == "$pmap" else MappingProxyType(pairs) if tag == "$mapping" else pairs
    if tag == "$float":
        return float(str(data[tag]))
    if tag == "$bytes":
        return base64.b64decode(str(data[tag]), validate=True)
    raise ValueError(f"unknown tag {tag!r}")


@attrs.frozen
class InterimCodec:
    """Tagged JSON for frozen values: attrs classes, enums, tuples, persistent collections.

    Example:
        >>> codec = InterimCodec()
        >>> codec.loads(codec.dumps((1, 2.0, "x"))).unwrap()
        (1, 2.0, 'x')
        >>> str(codec.loads(b"{").failure()).startswith("not a stored value")
        True
    """

    def can_encode(self, value: object) -> bool:
        """True if :meth:`dumps` can encode ``value`` (tried, so the answer is exact)."""
        try:
            _encode(value)
        except (_Unencodable, RecursionError):
            return False
        return True

    def dumps(self, value: object) -> bytes:
        """``value`` as UTF-8 JSON; raises ValueError for a type it does not know."""
        return json.dumps(_encode(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def loads(self, data: bytes) -> Result[object, ValueError]:
        """The value :meth:`dumps` encoded; corrupt data or an unknown class is a ``Failure``."""
        try:
            return Success(_decode(json.loads(data)))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            return Failure(ValueError(f"not a stored value: {exc}"[:300]))
