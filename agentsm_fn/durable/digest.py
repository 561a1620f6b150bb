"""Effect digests: what the journal keeps of an effect instead of the effect itself.

``content_digest(effect)`` is a SHA-256 over the effect's structure (class names, field
values, in the codec's canonical order), computed as a hash tree: the digest of each
frozen part (an attrs value, a tuple, a persistent vector) is remembered by identity,
so an effect that carries the run's whole history (an LLM call with every message)
costs one lookup per message it shares with the previous effect, not a walk of the
history. Replay recomputes each effect and compares digests: a journal grows by one
digest per effect, never by the effect's size.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from collections.abc import Callable
from typing import Final

import attr
import attrs
from pyrsistent import PMap, PSet, PVector

from agentsm_fn.core.effects import Effect
from agentsm_fn.durable._plans import Problem, Tag, class_name, plan_for

__all__ = ["content_digest"]

_MEMO_LIMIT: Final = 200_000
_memo: dict[int, tuple[object, bytes]] = {}
"""id -> (the object, kept alive so its id is not reused, and its digest)."""
_FROZEN_SETATTR: Final = getattr(getattr(attr, "_make", None), "_frozen_setattrs", None)
_IMMUTABLE: Final[frozenset[type]] = frozenset({tuple, frozenset})
_frozen_classes: dict[type, bool] = {}


def _is_frozen(cls: type) -> bool:
    """Whether instances of ``cls`` cannot change after they are made (so a memo stays true)."""
    found = _frozen_classes.get(cls)
    if found is None:
        if cls in _IMMUTABLE or issubclass(cls, PVector | PMap | PSet):
            found = True
        elif attrs.has(cls):
            found = _FROZEN_SETATTR is not None and cls.__setattr__ is _FROZEN_SETATTR
        elif dataclasses.is_dataclass(cls):
            found = bool(cls.__dataclass_params__.frozen)  # type: ignore[attr-defined]  # set by @dataclass
        else:
            found = issubclass(cls, tuple)  # a named tuple
        _frozen_classes[cls] = found
    return found


def _scalar(update: Callable[[bytes], object], value: object) -> bool:
    kind = type(value)
    if kind is str:
        data = value.encode("utf-8", "surrogatepass")  # type: ignore[attr-defined]  # kind is str
        update(b"s%d:" % len(data))
        update(data)
    elif kind is int or kind is bool:
        update(b"%c%d;" % (98 if kind is bool else 105, value))  # type: ignore[str-format]  # an int
    elif kind is float:
        update(b"f" + struct.pack("<d", value))
    elif value is None:
        update(b"n")
    elif kind is bytes:
        update(b"b%d:" % len(value))  # type: ignore[arg-type]  # kind is bytes
        update(value)  # type: ignore[arg-type]  # kind is bytes
    else:
        return False
    return True


def _digest(value: object) -> bytes:
    """The digest of a non-scalar value (raises :class:`Problem` for an unsupported one)."""
    key = id(value)
    found = _memo.get(key)
    if found is not None and found[0] is value:
        return found[1]
    hasher = hashlib.sha256()
    update = hasher.update

    def feed(item: object) -> None:
        if not _scalar(update, item):
            update(_digest(item))

    kind = type(value)
    if kind is tuple:
        update(b"(%d" % len(value))  # type: ignore[arg-type]  # kind is tuple
        for item in value:  # type: ignore[attr-defined]  # kind is tuple
            feed(item)
    else:
        plan = plan_for(kind)
        update(
            b"%d:%s" % (plan.tag, (class_name(kind) if plan.tag in (Tag.OBJECT, Tag.ENUM) else "").encode())
        )
        if plan.tag == Tag.OBJECT:
            for name in plan.attributes:
                feed(getattr(value, name))
        elif plan.tag == Tag.ENUM:
            feed(value.name)  # type: ignore[attr-defined]  # an enum member
        elif plan.tag in (Tag.DICT, Tag.PROXY):  # insertion order: the code that built it decides
            for name, item in value.items():  # type: ignore[attr-defined]  # a mapping, by its plan
                feed(name)
                feed(item)
        elif plan.tag == Tag.PMAP:  # hash order, which differs between processes: sort by key digest
            mapping: PMap[object, object] = value  # type: ignore[assignment]  # by its plan
            for key_digest, item in sorted(((_member(k), v) for k, v in mapping.items()), key=lambda p: p[0]):
                update(key_digest)
                feed(item)
        elif plan.tag in (Tag.FROZENSET, Tag.SET, Tag.PSET):
            for part in sorted(_member(item) for item in value):  # type: ignore[attr-defined]  # a set
                update(part)
        elif plan.tag in (Tag.SUCCESS, Tag.FAILURE):
            feed(value._inner_value)  # type: ignore[attr-defined]  # a returns container
        else:  # a list or a persistent vector
            for item in value:  # type: ignore[attr-defined]  # a sequence, by its plan
                feed(item)
    digest = hasher.digest()
    if _is_frozen(kind):
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        _memo[key] = (value, digest)
    return digest


def _member(item: object) -> bytes:
    hasher = hashlib.sha256()
    if not _scalar(hasher.update, item):
        return _digest(item)
    return hasher.digest()


def content_digest(effect: Effect[object]) -> bytes | None:
    """The SHA-256 digest of ``effect.underlying()``, or None if it holds an unsupported value.

    Equal effects have equal digests in every process.

    Example:
        >>> from agentsm_fn.llm import LlmCall, LlmRequest, UserMessage
        >>> call = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),)))
        >>> same = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),)))
        >>> content_digest(call) == content_digest(same), len(content_digest(call) or b"")
        (True, 32)
    """
    try:
        return _digest(effect.underlying())
    except (Problem, RecursionError):
        return None
