"""The codec's decoder: a msgpack tree back into frozen values (:mod:`agentsm_fn.durable.stores.codec`)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from types import MappingProxyType, ModuleType

import msgspec
from pyrsistent import pmap, pset, pvector
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import CodecFailure, CodecFailureKind
from agentsm_fn.durable.stores import _packed
from agentsm_fn.durable.stores._plans import FORMAT, Problem, Tag, plan_for, version_of

_SCALARS = frozenset({str, int, float, bool, type(None), bytes})
_UNPACK: Callable[[bytes], object] = msgspec.msgpack.Decoder().decode


def _corrupt(detail: str) -> Problem:
    return Problem(CodecFailureKind.CORRUPT, detail)


class _Decoder:
    """One payload's decoding: resolves its class table on first use of each entry."""

    __slots__ = ("builders", "classes", "in_order", "modules")

    def __init__(self, classes: object, modules: Mapping[str, ModuleType]) -> None:
        if not isinstance(classes, list):
            raise _corrupt("the class table is not a list")
        self.classes = classes
        self.modules = modules
        self.builders: dict[int, tuple[type, tuple[str, ...]]] = {}
        self.in_order = True
        """Each class was met first in the table's order, with the fields this code stores (as encoded)."""

    def as_encoded(self) -> bool:
        """True when this payload's class table is the one the encoder would write for its value."""
        return self.in_order and len(self.builders) == len(self.classes)

    def resolve(self, index: object) -> tuple[type, tuple[str, ...]]:
        if type(index) is not int:
            raise _corrupt(f"a class reference is a {type(index).__name__}")
        found = self.builders.get(index)
        if found is not None:
            return found
        if not 0 <= index < len(self.classes):
            raise _corrupt(f"class reference {index} is not in the table")
        entry = self.classes[index]
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            raise _corrupt(f"class table entry {index} is malformed")
        name, version, fields = entry
        cls = self._load(name)
        current = version_of(cls)
        if version != current:
            detail = f"{name} was stored at version {version!r}; this code has version {current}"
            raise Problem(CodecFailureKind.VERSION, detail)
        try:
            known = plan_for(cls).fields
        except Problem:
            raise Problem(CodecFailureKind.UNKNOWN_CLASS, f"{name} is not a class the codec stores") from None
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise _corrupt(f"class table entry {index} has malformed field names")
        gone = [f for f in fields if f not in known]
        if gone:
            detail = f"{name} has no field {gone[0]!r} any more (bump __codec_version__ when fields go)"
            raise Problem(CodecFailureKind.VERSION, detail)
        if index != len(self.builders) or tuple(fields) != known:
            self.in_order = False
        found = self.builders[index] = cls, tuple(fields)
        return found

    def _load(self, name: str) -> type:
        module_name, _, qualname = name.partition(":")
        found: object = self.modules.get(module_name)
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if not isinstance(found, type) or not qualname:
            detail = (
                f"{name} is not loaded here (import its module before decoding; the codec imports nothing)"
            )
            raise Problem(CodecFailureKind.UNKNOWN_CLASS, detail)
        return found

    def value(self, data: object) -> object:
        if type(data) in _SCALARS:
            return data
        if type(data) is not list or not data:
            raise _corrupt(f"unexpected {type(data).__name__}")
        tag = data[0]
        if tag == Tag.OBJECT:
            return self._object(data)
        if tag == Tag.TUPLE:
            return tuple(self._items(data))
        if tag == Tag.LIST:
            return self._items(data)
        if tag == Tag.PVECTOR:
            return pvector(self._items(data))
        if tag in (Tag.FROZENSET, Tag.SET, Tag.PSET):
            items = self._items(data)
            return frozenset(items) if tag == Tag.FROZENSET else set(items) if tag == Tag.SET else pset(items)
        if tag in (Tag.DICT, Tag.PROXY, Tag.PMAP):
            return self._mapping(data, tag)
        if tag == Tag.ENUM:
            cls, _ = self.resolve(data[1] if len(data) == 3 else None)
            if (
                not issubclass(cls, enum.Enum)
                or not isinstance(data[2], str)
                or data[2] not in cls.__members__
            ):
                raise _corrupt(f"{cls.__qualname__} has no member {data[2]!r}")
            return cls[data[2]]
        if tag in (Tag.SUCCESS, Tag.FAILURE) and len(data) == 2:
            inner = self.value(data[1])
            return Success(inner) if tag == Tag.SUCCESS else Failure(inner)
        if tag == Tag.BIGINT and len(data) == 2 and isinstance(data[1], str):
            return int(data[1])
        if tag == Tag.PACKED and len(data) == 2:
            return _decoded(data[1], self.modules)
        raise _corrupt(f"unknown tag {tag!r}")

    def _items(self, data: list[object]) -> list[object]:
        out: list[object] = []
        for index in range(1, len(data)):
            try:
                out.append(self.value(data[index]))
            except Problem as problem:
                raise problem.at(f"[{index - 1}]") from None
        return out

    def _mapping(self, data: list[object], tag: object) -> object:
        if len(data) % 2 == 0:
            raise _corrupt("a mapping has a key without a value")
        pairs: dict[object, object] = {}
        for index in range(1, len(data), 2):
            key = self.value(data[index])
            try:
                pairs[key] = self.value(data[index + 1])
            except Problem as problem:
                raise problem.at(f"[{key!r}]"[:60]) from None
        if tag == Tag.DICT:
            return pairs
        return MappingProxyType(pairs) if tag == Tag.PROXY else pmap(pairs)

    def _object(self, data: list[object]) -> object:
        if len(data) < 2:
            raise _corrupt("an object without a class")
        cls, fields = self.resolve(data[1])
        if len(data) != len(fields) + 2:
            raise _corrupt(f"{cls.__qualname__} has {len(data) - 2} values for {len(fields)} fields")
        kwargs: dict[str, object] = {}
        for offset, name in enumerate(fields, start=2):
            try:
                kwargs[name] = self.value(data[offset])
            except Problem as problem:
                raise problem.at(f".{name}") from None
        try:
            return cls(**kwargs)
        except Exception as exc:  # a validator or converter refused the stored fields
            raise _corrupt(
                f"{cls.__qualname__} refused its stored fields: {type(exc).__name__}: {exc}"
            ) from None


def _decoded(data: object, modules: Mapping[str, ModuleType]) -> object:
    """The value of one payload (raises :class:`Problem`); a packed one is then known by ``data``."""
    if type(data) is not bytes:
        raise _corrupt(f"a payload is a {type(data).__name__}, not bytes")
    try:
        payload = _UNPACK(data)
    except (msgspec.DecodeError, TypeError, ValueError) as exc:
        raise _corrupt(f"not a payload: {exc}") from None
    if not isinstance(payload, list) or len(payload) != 3:
        raise _corrupt("not a payload")
    if payload[0] != FORMAT:
        raise Problem(CodecFailureKind.VERSION, f"format {payload[0]!r}; this version reads format {FORMAT}")
    decoder = _Decoder(payload[1], modules)
    tree = payload[2]
    value = decoder.value(tree)
    if type(tree) is list and tree[0] == Tag.OBJECT and decoder.as_encoded() and plan_for(type(value)).packed:
        _packed.keep_bytes(value, data)  # encoding it again would write these bytes: copy them instead
    return value


def decode_payload(data: bytes, modules: Mapping[str, ModuleType]) -> Result[object, CodecFailure]:
    """Rebuild the value of one payload (``[FORMAT, classes, tree]``); every problem is a ``Failure``."""
    try:
        return Success(_decoded(data, modules))
    except Problem as problem:
        return Failure(problem.failure())
    except RecursionError:
        return Failure(CodecFailure(kind=CodecFailureKind.CORRUPT, detail="the value nests too deeply"))
    except (TypeError, ValueError, KeyError, IndexError) as exc:  # e.g. an unhashable key from bad bytes
        return Failure(CodecFailure(kind=CodecFailureKind.CORRUPT, detail=f"{type(exc).__name__}: {exc}"))
