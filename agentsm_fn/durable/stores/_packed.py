"""The codec's packed values: each object's own payload, kept while the object lives.

A class that sets ``__codec_packed__ = True`` is stored as a payload of its own, embedded in
the payloads that hold it (``[Tag.PACKED, bytes]``), and its bytes are remembered by the
object's identity for as long as the object lives (a weak reference drops them with it).
Such a value is large, frozen, and met again in many payloads: a thread's conversation is
in a turn's start memory, in every checkpoint of the turn, and in the thread so far after
it. Encoding it once per object turns each later encoding into a copy of bytes; a payload
read from a store makes its value known by those bytes, so encoding it again copies them.

A packed class promises that its values never change while they live (frozen all the way
down, as a conversation's persistent vector of frozen messages is): the bytes are not
checked against the value again.
"""

from __future__ import annotations

import threading
import weakref

__all__ = ["bytes_of", "keep_bytes"]

_LIMIT = 256
"""The most packed values remembered at once (the oldest is forgotten first); as many as the
threads whose last turn a process keeps (``durable.running._so_far``), so every thread warm in a
process starts its next turn without re-encoding its conversation."""

_BYTES: dict[int, tuple[weakref.ref[object], bytes]] = {}
_LOCK = threading.RLock()
"""Reentrant: a collection inside :func:`keep_bytes` may free a packed value, whose callback takes it."""


def bytes_of(value: object) -> bytes | None:
    """The payload remembered for ``value`` (this very object), or None.

    Example:
        >>> from agentsm_fn.llm import Conversation
        >>> kept, other = Conversation(), Conversation()
        >>> keep_bytes(kept, b"its payload")
        >>> bytes_of(kept), bytes_of(other)
        (b'its payload', None)
    """
    found = _BYTES.get(id(value))
    if found is not None and found[0]() is value:
        return found[1]
    return None


def _forget(key: int, ref: weakref.ref[object]) -> None:
    with _LOCK:
        found = _BYTES.get(key)
        if found is not None and found[0] is ref:
            del _BYTES[key]


def keep_bytes(value: object, data: bytes) -> None:
    """Remember ``data`` as ``value``'s payload while it lives (not if it takes no weak reference).

    Example:
        >>> keep_bytes((1, 2), b"never kept")  # a tuple takes no weak reference
        >>> bytes_of((1, 2)) is None
        True
    """
    key = id(value)
    try:
        ref = weakref.ref(value, lambda dead: _forget(key, dead))
    except TypeError:  # a class without __weakref__: encoded afresh each time, never wrong
        return
    with _LOCK:
        if key not in _BYTES and len(_BYTES) >= _LIMIT:
            _BYTES.pop(next(iter(_BYTES)), None)
        _BYTES[key] = (ref, data)
