"""How the codec handles each class: its tag, its stored name, its fields (one plan per class)."""

from __future__ import annotations

import dataclasses
import enum
from types import MappingProxyType

import attrs
from pyrsistent import PMap, PSet, PVector
from returns.result import Failure, Success

from agentsm_fn.durable.errors import CodecFailure, CodecFailureKind

FORMAT = 1
"""The payload format this codec writes and reads."""


class Tag:
    """The first element of an encoded container: what kind of value it is."""

    TUPLE = 0
    LIST = 1
    FROZENSET = 2
    SET = 3
    DICT = 4
    PROXY = 5
    PVECTOR = 6
    PMAP = 7
    ENUM = 8
    OBJECT = 9
    SUCCESS = 10
    FAILURE = 11
    BIGINT = 12
    PSET = 13
    PACKED = 14
    """``[PACKED, bytes]``: a packed value (its class sets ``__codec_packed__``), as a payload of its own."""


class Problem(Exception):
    """Raised inside the codec only, and turned into a :class:`CodecFailure` at its door."""

    def __init__(self, kind: CodecFailureKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.path: list[str] = []

    def at(self, part: str) -> Problem:
        """Record one more level of the path (innermost first)."""
        self.path.append(part)
        return self

    def failure(self) -> CodecFailure:
        """The value this problem stands for."""
        return CodecFailure(kind=self.kind, detail=self.detail, path="".join(reversed(self.path)))


@attrs.frozen
class Plan:
    """What the codec needs to know about one class."""

    cls: type
    tag: int
    name: str = ""
    version: int = 1
    fields: tuple[str, ...] = ()
    """The names stored for each field (attrs: the ``__init__`` argument, its alias)."""
    attributes: tuple[str, ...] = ()
    """Where each field is read from (attrs: the attribute name)."""
    packed: bool = False
    """Stored as a payload of its own, remembered per object (the class sets ``__codec_packed__ = True``)."""


_BUILTIN: dict[type, int] = {
    list: Tag.LIST,
    frozenset: Tag.FROZENSET,
    set: Tag.SET,
    dict: Tag.DICT,
    MappingProxyType: Tag.PROXY,
    Success: Tag.SUCCESS,
    Failure: Tag.FAILURE,
}

_PLANS: dict[type, Plan] = {}


def class_name(cls: type) -> str:
    """``module:qualname``, the name a class is stored under.

    Example:
        >>> class_name(Plan)
        'agentsm_fn.durable.stores._plans:Plan'
    """
    return f"{cls.__module__}:{cls.__qualname__}"


def version_of(cls: type) -> int:
    """The class's ``__codec_version__`` (1 when it declares none)."""
    version = getattr(cls, "__codec_version__", 1)
    return version if isinstance(version, int) else 1


def _fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    if attrs.has(cls):
        found = [f for f in attrs.fields(cls) if f.init]
        return tuple(f.alias or f.name for f in found), tuple(f.name for f in found)
    if dataclasses.is_dataclass(cls):
        names = tuple(f.name for f in dataclasses.fields(cls) if f.init)
        return names, names
    named = getattr(cls, "_fields", None)
    if issubclass(cls, tuple) and isinstance(named, tuple):
        names = tuple(str(name) for name in named)
        return names, names
    return None


def _importable(cls: type) -> bool:
    import sys  # noqa: PLC0415 - only when a class is first met

    module = sys.modules.get(cls.__module__)
    found: object = module
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is cls


def plan_for(cls: type) -> Plan:
    """The plan for ``cls``, made once; raises :class:`Problem` for an unsupported class."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    tag = _BUILTIN.get(cls)
    if tag is None:
        for base, base_tag in ((PVector, Tag.PVECTOR), (PMap, Tag.PMAP), (PSet, Tag.PSET)):
            if issubclass(cls, base):
                tag = base_tag
    plan = Plan(cls=cls, tag=tag, name=cls.__qualname__) if tag is not None else _class_plan(cls)
    _PLANS[cls] = plan
    return plan


def _class_plan(cls: type) -> Plan:
    name = class_name(cls)
    if issubclass(cls, enum.Enum):
        tag = Tag.ENUM
        fields: tuple[str, ...] = ()
        attributes: tuple[str, ...] = ()
    else:
        found = _fields(cls)
        if found is None:
            why = "only attrs classes, dataclasses, named tuples, enums and containers are stored"
            raise Problem(CodecFailureKind.NOT_ENCODABLE, f"cannot encode a {name}: {why}")
        tag, (fields, attributes) = Tag.OBJECT, found
    if not _importable(cls):
        why = "it is not reachable by that name (define it at module level)"
        raise Problem(CodecFailureKind.NOT_ENCODABLE, f"cannot encode a {name}: {why}")
    packed = tag == Tag.OBJECT and getattr(cls, "__codec_packed__", False) is True
    return Plan(
        cls=cls,
        tag=tag,
        name=name,
        version=version_of(cls),
        fields=fields,
        attributes=attributes,
        packed=packed,
    )
