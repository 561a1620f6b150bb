"""Effect digests: what the journal keeps of an effect instead of the effect itself.

``content_digest(effect)`` is the SHA-256 of the effect's class name and a canonical
msgpack encoding of its value (msgspec in C, ``order="deterministic"``: attrs and
dataclass fields, dict keys and set members sorted, so the bytes do not depend on the
process's hash seed; persistent vectors, maps and sets encoded as lists, maps and sets).
Replay recomputes each effect and compares digests: a journal grows by 32 bytes per
effect, never by the effect's size, and an effect that carries the whole conversation
is hashed in C.

Nested values are encoded by their fields (their class names are not part of the
digest, the effect's own class name is), so two effects differ in digest when they
differ in type or in any field value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from types import MappingProxyType
from typing import Final

import msgspec
from pyrsistent import PMap, PSet, PVector
from returns.result import Failure, Success

from agentsm_fn.core.effects import Effect

__all__ = ["content_digest", "undigestible"]


_MEMO_LIMIT: Final = 50_000
_plain: dict[int, tuple[object, object]] = {}
"""id -> (a persistent value, kept alive so the id is not reused, and its plain form): they never change,
and the same ones (tool schemas, the history) come back in every effect of a run."""


def _hook(value: object) -> object:
    """What msgspec cannot encode by itself, as something it can (or TypeError)."""
    if isinstance(value, PVector | PMap | PSet):
        found = _plain.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        plain = (
            list(value)
            if isinstance(value, PVector)
            else dict(value)
            if isinstance(value, PMap)
            else set(value)
        )
        if len(_plain) >= _MEMO_LIMIT:
            _plain.clear()
        _plain[id(value)] = (value, plain)
        return plain
    if isinstance(value, MappingProxyType):
        return dict(value)
    if isinstance(value, Success):
        return ["Success", value.unwrap()]
    if isinstance(value, Failure):
        return ["Failure", value.failure()]
    raise TypeError(f"cannot digest a {type(value).__qualname__}")


_ENCODE: Final[Callable[[object], bytes]] = msgspec.msgpack.Encoder(
    order="deterministic", enc_hook=_hook
).encode


def content_digest(effect: Effect[object]) -> bytes | None:
    """The SHA-256 digest of ``effect.underlying()``, or None if it holds a value that cannot be encoded.

    Equal effects have equal digests in every process.

    Example:
        >>> from agentsm_fn.llm import LlmCall, LlmRequest, UserMessage
        >>> call = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),)))
        >>> same = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),)))
        >>> content_digest(call) == content_digest(same), len(content_digest(call) or b"")
        (True, 32)
    """
    target = effect.underlying()
    try:
        data = _ENCODE(target)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None
    hasher = hashlib.sha256(type(target).__qualname__.encode())
    hasher.update(data)
    return hasher.digest()


def undigestible(value: object) -> str | None:
    """Why an effect holding ``value`` could not be journaled (an int beyond 64 bits), or None.

    Checked where values come in from outside (JSON into a memory), so a run is never stored
    that fails at its first effect.

    Example:
        >>> undigestible(2**64 - 1) is None, undigestible([-(2**63) - 1])
        (True, "can't serialize ints < -2**63 or > 2**64 - 1")
    """
    try:
        _ENCODE(value)
    except OverflowError as exc:
        return str(exc)
    except (TypeError, ValueError, RecursionError):  # not this check's business: the codec's own errors say
        return None
    return None
