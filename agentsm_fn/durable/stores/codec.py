"""The durable codec: any frozen value of a user machine to bytes and back, exactly.

``to_bytes(value)`` and ``from_bytes(data, expected)`` round-trip memories, effects and
outcomes of user types: attrs classes, dataclasses and named tuples, enums, tuples,
lists, frozensets and sets, dicts and read-only mappings, pyrsistent vectors, maps and
sets, ``returns`` ``Success``/``Failure`` values, bytes, and ints of any size. Both
return a ``Result``; nothing raises::

    CodecFailure(kind=...)
      NOT_ENCODABLE   the value holds something of no supported type (a function, a socket),
                      or a class that cannot be found by its name (defined inside a function)
      UNKNOWN_CLASS   a stored class is not loaded here (the codec never imports a module)
      VERSION         the payload's format, or a class's ``__codec_version__``, differs
      CORRUPT         the bytes are not a payload, or a class refused its stored fields
      WRONG_TYPE      the payload decoded to a value that is not an instance of ``expected``

``path`` names the field where it happened (``.history[3].tool``); the store adds the
run and the column (:class:`~agentsm_fn.durable.errors.CodecFailure`).

Wire form: msgpack (msgspec) of ``[FORMAT, classes, tree]``. ``classes`` lists each class
once as ``[module:qualname, version, field names]``; an instance is ``[9, class index,
field values...]`` and is rebuilt by field *name*, so a field added since (with a
default) or fields reordered still decode. Sets are written in a canonical order, so
equal values have equal bytes (so equal memories store equal payloads; the journal's effect digests
are a separate msgspec hash, :mod:`agentsm_fn.durable.running.digest`).

A class that sets ``__codec_packed__ = True`` (a large frozen value met in many payloads:
a thread's ``Conversation``) is written as a payload of its own, ``[14, bytes]`` inside
another, or as the whole payload when it is the value encoded; its bytes are remembered
per object while it lives (:mod:`agentsm_fn.durable.stores._packed`), so a memory that
holds the same conversation as the last one encoded, or as one just read, costs a copy.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TypeVar

import msgspec
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import CodecFailure, CodecFailureKind
from agentsm_fn.durable.stores import _packed as _packed_store
from agentsm_fn.durable.stores._decode import decode_payload
from agentsm_fn.durable.stores._plans import FORMAT, Plan, Problem, Tag, plan_for

__all__ = ["FORMAT", "from_bytes", "to_bytes"]

T = TypeVar("T")

_SCALARS = frozenset({str, float, bool, type(None), bytes})
_INT_LIMIT = 2**63
_PACK: Callable[[object], bytes] = msgspec.msgpack.Encoder().encode


class _Encoder:
    """One payload's encoding: the class table, filled as classes are met."""

    __slots__ = ("classes", "index")

    def __init__(self) -> None:
        self.classes: list[list[object]] = []
        self.index: dict[type, int] = {}

    def cls(self, plan: Plan) -> int:
        found = self.index.get(plan.cls)
        if found is None:
            found = self.index[plan.cls] = len(self.classes)
            self.classes.append([plan.name, plan.version, list(plan.fields)])
        return found

    def items(self, values: Iterable[object], tag: int) -> list[object]:
        out: list[object] = [tag]
        add, encode = out.append, self.value
        for index, item in enumerate(values):
            try:
                add(encode(item))
            except Problem as problem:
                raise problem.at(f"[{index}]") from None
        return out

    def instance(self, value: object, plan: Plan) -> list[object]:
        out: list[object] = [Tag.OBJECT, self.cls(plan)]
        for name in plan.attributes:
            try:
                out.append(self.value(getattr(value, name)))
            except Problem as problem:
                raise problem.at(f".{name}") from None
        return out

    def value(self, value: object) -> object:
        kind = type(value)
        if kind in _SCALARS:
            return value
        if kind is int:
            number: int = value  # type: ignore[assignment]  # kind is int
            return number if -_INT_LIMIT <= number < _INT_LIMIT else [Tag.BIGINT, str(number)]
        if kind is tuple:
            return self.items(value, Tag.TUPLE)  # type: ignore[arg-type]  # kind is tuple
        plan = plan_for(kind)
        tag = plan.tag
        if tag == Tag.OBJECT:
            return [Tag.PACKED, _packed(value, plan)] if plan.packed else self.instance(value, plan)
        if tag == Tag.ENUM:
            return [Tag.ENUM, self.cls(plan), value.name]  # type: ignore[attr-defined]  # an enum member
        if tag in (Tag.LIST, Tag.PVECTOR):
            return self.items(value, tag)  # type: ignore[arg-type]  # a list or vector, by its plan
        if tag in (Tag.DICT, Tag.PROXY, Tag.PMAP):
            flat: list[object] = [tag]
            for key, item in value.items():  # type: ignore[attr-defined]  # a mapping, by its plan
                try:
                    flat.append(self.value(key))
                    flat.append(self.value(item))
                except Problem as problem:
                    raise problem.at(f"[{key!r}]"[:60]) from None
            return flat
        if tag in (Tag.FROZENSET, Tag.SET, Tag.PSET):
            return self.items(sorted(value, key=_sort_key), tag)  # type: ignore[call-overload]  # a set, by its plan
        return [tag, self.value(value._inner_value)]  # type: ignore[attr-defined]  # Success or Failure


def _packed(value: object, plan: Plan) -> bytes:
    """A packed value's own payload: remembered for this object, else encoded (then remembered)."""
    data = _packed_store.bytes_of(value)
    if data is None:
        encoder = _Encoder()
        data = _PACK([FORMAT, encoder.classes, encoder.instance(value, plan)])
        _packed_store.keep_bytes(value, data)
    return data


def _sort_key(value: object) -> tuple[int, str, object]:
    """A total order on set members that does not depend on the process (str hashes do)."""
    kind = type(value)
    if kind in (str, int, float, bool, bytes):
        return 0, kind.__name__, value
    encoder = _Encoder()
    tree = encoder.value(value)
    return 1, "", _PACK([encoder.classes, tree])


def to_bytes(value: object) -> Result[bytes, CodecFailure]:
    """Encode ``value``; a value holding an unsupported type is a ``Failure`` naming where.

    Example:
        >>> from agentsm_fn.core import Status
        >>> data = to_bytes((Status.READY, frozenset({"a", "b"}))).unwrap()
        >>> from_bytes(data, tuple).unwrap() == (Status.READY, frozenset({"a", "b"}))
        True
        >>> to_bytes([1, lambda: 1]).failure().path
        '[1]'
    """
    encoder = _Encoder()
    try:
        kind = type(value)
        if kind not in _SCALARS and kind is not int and kind is not tuple and plan_for(kind).packed:
            return Success(_packed(value, plan_for(kind)))  # its own payload, not one that embeds it
        tree = encoder.value(value)
        return Success(_PACK([FORMAT, encoder.classes, tree]))
    except Problem as problem:
        return Failure(problem.failure())
    except RecursionError:
        return Failure(CodecFailure(kind=CodecFailureKind.NOT_ENCODABLE, detail="the value nests too deeply"))


def from_bytes(data: bytes, expected: type[T]) -> Result[T, CodecFailure]:
    """Decode what :func:`to_bytes` wrote into an instance of ``expected`` (``object`` for any).

    Example:
        >>> from_bytes(to_bytes((1, 2)).unwrap(), tuple).unwrap()
        (1, 2)
        >>> from_bytes(b"junk", tuple).failure().kind
        <CodecFailureKind.CORRUPT: 'corrupt'>
        >>> from_bytes(to_bytes(1).unwrap(), str).failure().kind
        <CodecFailureKind.WRONG_TYPE: 'wrong type'>
    """
    decoded = decode_payload(data, sys.modules)
    if isinstance(decoded, Failure):
        return decoded
    value = decoded.unwrap()
    if expected is not object and not isinstance(value, expected):
        detail = f"expected a {expected.__qualname__}, found a {type(value).__qualname__}"
        return Failure(CodecFailure(kind=CodecFailureKind.WRONG_TYPE, detail=detail))
    found: T = value  # type: ignore[assignment]  # checked above, or ``expected`` is object
    return Success(found)
