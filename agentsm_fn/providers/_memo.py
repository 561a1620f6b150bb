"""Memoizing by identity (private): frozen values that are re-sent on every turn of a conversation.

An agent re-sends its whole history with every call, as the same message objects
from turn to turn; their wire form is found again by identity, without hashing the
messages (and the tool arguments inside them). The memo keeps each key alive while
it holds it, so an id cannot be reused for another object meanwhile; it is emptied
when it grows past its limit.

Never put a memo keyed by equality (``functools.lru_cache``) behind it for frozen JSON:
1 == 1.0 == True in Python, so ``{"flag": 1}`` and ``{"flag": True}`` are equal maps and
one would be sent in place of the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["by_identity"]

K = TypeVar("K")
V = TypeVar("V")


def by_identity(fn: Callable[[K], V], limit: int = 4096) -> Callable[[K], V]:
    """``fn`` memoized by the identity of its argument (results are shared: never mutate them).

    Example:
        >>> calls = []
        >>> double = by_identity(lambda xs: calls.append(xs) or [x * 2 for x in xs])
        >>> key = (1, 2)
        >>> double(key) is double(key), len(calls)
        (True, 1)
    """
    memo: dict[int, tuple[K, V]] = {}

    def memoized(key: K) -> V:
        hit = memo.get(id(key))
        if hit is not None and hit[0] is key:
            return hit[1]
        value = fn(key)
        if len(memo) >= limit:
            memo.clear()
        memo[id(key)] = (key, value)
        return value

    return memoized
