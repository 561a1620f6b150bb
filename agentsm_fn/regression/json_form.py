"""The codec's JSON form: any value the durable codec stores, as readable JSON and back, exactly.

A recording is a file people read in a diff, so its values are written as JSON a reader
follows, and decoded through the durable codec (:mod:`agentsm_fn.durable`), which checks
class versions and fields and never imports a module. Plain JSON stands for itself (a
string, a finite float, an int of at most 64 bits, true, false, null); a JSON array is a
*tuple* (the sequence frozen values hold); everything else is an object with one ``$`` key::

    {"$class": "module:Qualname", "field": ..., ...}   an attrs class, dataclass or named tuple
                                                      ("$version": n when its version is not 1)
    {"$enum": "module:Qualname.MEMBER"}
    {"$list": [...]}  {"$frozenset": [...]}  {"$set": [...]}  {"$pvector": [...]}  {"$pset": [...]}
    {"$dict": {...}}  {"$proxy": {...}}  {"$pmap": {...}}      string keys; else [[key, value], ...]
    {"$success": ...}  {"$failure": ...}  {"$int": "digits"}  {"$bytes": "base64"}  {"$float": "nan"}

Every problem is a :class:`~agentsm_fn.durable.CodecFailure` naming where it is (``path``).
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

import msgspec
from pyrsistent import PVector
from returns.result import Failure, Result

from agentsm_fn.durable import CodecFailure, CodecFailureKind, from_bytes, to_bytes
from agentsm_fn.durable.stores.codec import FORMAT
from agentsm_fn.llm.json import JsonValue

__all__ = ["from_json_form", "to_json_form"]

T = TypeVar("T")

_PACK: Final[Callable[[object], bytes]] = msgspec.msgpack.Encoder().encode
_UNPACK: Final[Callable[[bytes], object]] = msgspec.msgpack.Decoder().decode

_TUPLE, _LIST, _FROZENSET, _SET, _DICT, _PROXY, _PVECTOR, _PMAP = range(8)
_ENUM, _OBJECT, _SUCCESS, _FAILURE, _BIGINT, _PSET, _PACKED = range(8, 15)
"""The codec's container tags (``agentsm_fn.durable.stores._plans.Tag``): part of its stored format."""

_SEQUENCES: Final = {
    "$list": _LIST,
    "$frozenset": _FROZENSET,
    "$set": _SET,
    "$pvector": _PVECTOR,
    "$pset": _PSET,
}
_MAPPINGS: Final = {"$dict": _DICT, "$proxy": _PROXY, "$pmap": _PMAP}
_WRAPPERS: Final = {"$success": _SUCCESS, "$failure": _FAILURE}
_NAMES: Final = {tag: name for table in (_SEQUENCES, _MAPPINGS, _WRAPPERS) for name, tag in table.items()}
_FLOATS: Final = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class _Bad(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.path: list[str] = []

    def at(self, part: str) -> _Bad:
        self.path.append(part)
        return self


def to_json_form(value: object) -> Result[JsonValue, CodecFailure]:
    """``value`` as the codec's JSON form (a ``Failure`` if the codec cannot store it).

    Example:
        >>> from agentsm_fn.llm import UserMessage
        >>> to_json_form((UserMessage("hi"), frozenset({2, 1}), None)).unwrap()
        [{'$class': 'agentsm_fn.llm.messages:UserMessage', 'content': 'hi'}, {'$frozenset': [1, 2]}, None]
    """
    encoded = to_bytes(value)
    if isinstance(encoded, Failure):
        return encoded
    return encoded.map(lambda data: _Writer([]).value([_PACKED, data]))


class _Writer:
    """The codec's tree (scalars, and lists that start with a tag) as the JSON form."""

    __slots__ = ("classes",)

    def __init__(self, classes: list[list[Any]]) -> None:
        self.classes = classes

    def value(self, data: Any) -> JsonValue:
        kind = type(data)
        if kind is str or kind is int or kind is bool or data is None:
            scalar: JsonValue = data
            return scalar
        if kind is float:
            return data if math.isfinite(data) else {"$float": repr(data)}
        if kind is bytes:
            return {"$bytes": base64.b64encode(data).decode()}
        tag: int = data[0]
        rest: list[Any] = data[1:]
        if tag == _TUPLE:
            return [self.value(item) for item in rest]
        if tag == _PACKED:  # a payload of its own (a conversation): written in place, as any object
            payload: list[Any] = _UNPACK(rest[0])  # type: ignore[assignment]  # the codec wrote [FORMAT, classes, tree]
            return _Writer(payload[1]).value(payload[2])
        if tag == _OBJECT:
            name, version, fields = self.classes[rest[0]]
            out: dict[str, JsonValue] = {"$class": name}
            if version != 1:
                out["$version"] = version
            for field, item in zip(fields, rest[1:], strict=True):
                out[field] = self.value(item)
            return out
        if tag == _ENUM:
            return {"$enum": f"{self.classes[rest[0]][0]}.{rest[1]}"}
        if tag == _BIGINT:
            return {"$int": rest[0]}
        if tag in (_SUCCESS, _FAILURE):
            return {_NAMES[tag]: self.value(rest[0])}
        if tag in (_DICT, _PROXY, _PMAP):
            entries = list(zip(rest[0::2], rest[1::2], strict=True))
            if tag == _PMAP:  # a persistent map's order is its keys' hashes': write it in one order
                entries.sort(key=_key_order)
            if all(type(key) is str for key, _ in entries):
                return {_NAMES[tag]: {key: self.value(item) for key, item in entries}}
            return {_NAMES[tag]: [[self.value(key), self.value(item)] for key, item in entries]}
        return {_NAMES[tag]: [self.value(item) for item in rest]}


def _key_order(entry: tuple[Any, Any]) -> tuple[int, str, bytes]:
    key = entry[0]
    return (0, key, b"") if type(key) is str else (1, "", _PACK(key))


def from_json_form(data: object, expected: type[T]) -> Result[T, CodecFailure]:
    """Decode what :func:`to_json_form` wrote (parsed JSON) into an instance of ``expected``.

    The classes it names must be loaded (the codec imports nothing).

    Example:
        >>> from agentsm_fn.llm import UserMessage
        >>> value = (UserMessage("hi"), {"k": bytes(2)}, float("inf"), 2**70)
        >>> from_json_form(to_json_form(value).unwrap(), tuple).unwrap() == value
        True
        >>> from_json_form({"$class": "nowhere:Thing"}, object).failure().kind.value
        'unknown class'
        >>> from_json_form([1, {"$list": 2}], tuple).failure().describe()
        '[1]: corrupt: $list must hold an array, not int'
    """
    reader = _Reader()
    try:
        tree = reader.value(data)
    except _Bad as bad:
        return Failure(
            CodecFailure(kind=CodecFailureKind.CORRUPT, detail=bad.detail, path="".join(reversed(bad.path)))
        )
    except RecursionError:
        return Failure(CodecFailure(kind=CodecFailureKind.CORRUPT, detail="the value nests too deeply"))
    return from_bytes(_PACK([FORMAT, reader.classes, tree]), expected)


class _Reader:
    __slots__ = ("classes", "index")

    def __init__(self) -> None:
        self.classes: list[list[object]] = []
        self.index: dict[tuple[str, object, tuple[str, ...]], int] = {}

    def cls(self, name: str, version: object, fields: tuple[str, ...]) -> int:
        key = (name, version, fields)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.classes)
            self.classes.append([name, version, list(fields)])
        return found

    def value(self, data: object) -> object:
        if data is None or type(data) in (str, int, bool):
            return data
        if type(data) is float:
            return data
        if isinstance(data, list | tuple | PVector):
            return [_TUPLE, *self.items(data)]
        if not isinstance(data, Mapping):
            raise _Bad(f"a {type(data).__name__} is not JSON")
        if "$class" in data:
            return self.instance(data)
        if len(data) != 1:
            raise _Bad(f"an object with keys {sorted(data)[:4]} is neither a class nor one $ key")
        ((key, inner),) = data.items()
        return self.tagged(key, inner)

    def items(self, data: Sequence[object]) -> list[object]:
        out: list[object] = []
        for index, item in enumerate(data):
            try:
                out.append(self.value(item))
            except _Bad as bad:
                raise bad.at(f"[{index}]") from None
        return out

    def instance(self, data: Mapping[str, object]) -> list[object]:
        name, version = data["$class"], data.get("$version", 1)
        if not isinstance(name, str) or ":" not in name:
            raise _Bad(f"$class is {name!r}, not module:Qualname")
        fields = tuple(key for key in data if key not in ("$class", "$version"))
        out: list[object] = [_OBJECT, self.cls(name, version, fields)]
        for field in fields:
            try:
                out.append(self.value(data[field]))
            except _Bad as bad:
                raise bad.at(f".{field}") from None
        return out

    def tagged(self, key: str, inner: object) -> object:
        if key in _SEQUENCES:
            return [_SEQUENCES[key], *self.items(_array(key, inner))]
        if key in _MAPPINGS:
            return [_MAPPINGS[key], *self.pairs(key, inner)]
        if key in _WRAPPERS:
            return [_WRAPPERS[key], self.value(inner)]
        if key == "$enum" and isinstance(inner, str) and ":" in inner and "." in inner:
            cls, _, member = inner.rpartition(".")
            return [_ENUM, self.cls(cls, 1, ()), member]
        if key == "$int" and isinstance(inner, str) and inner.lstrip("-").isdigit():
            return [_BIGINT, inner]
        if key == "$float" and inner in _FLOATS:
            return _FLOATS[inner]
        if key == "$bytes" and isinstance(inner, str):
            try:
                return base64.b64decode(inner, validate=True)
            except binascii.Error:
                raise _Bad("$bytes is not base64") from None
        raise _Bad(f"{key} with a {type(inner).__name__} is not a value of the JSON form")

    def pairs(self, key: str, inner: object) -> list[object]:
        flat: list[object] = []
        if isinstance(inner, Mapping):
            for name, item in inner.items():
                try:
                    flat += [name, self.value(item)]
                except _Bad as bad:
                    raise bad.at(f"[{name!r}]"[:60]) from None
            return flat
        for index, pair in enumerate(_array(key, inner)):
            if not (isinstance(pair, list | tuple | PVector) and len(pair) == 2):
                raise _Bad(f"{key} entry {index} is not a [key, value] pair")
            try:
                flat += [self.value(pair[0]), self.value(pair[1])]
            except _Bad as bad:
                raise bad.at(f"[{index}]") from None
        return flat


def _array(key: str, inner: object) -> Sequence[object]:
    if not isinstance(inner, list | tuple | PVector):
        raise _Bad(f"{key} must hold an array, not {type(inner).__name__}")
    return inner
