"""Idempotency keys: what a performer reads to tell "the same effect again" from "a new effect".

A durable runner (and a Temporal activity) performs effect number ``seq`` of run
``run_id`` inside ``with keyed(EffectKey(run_id, seq)):``; a performer calls
:func:`effect_key` and passes ``str(key)`` to the service it calls (a payment API's
idempotency key, a database upsert key, ...), so performing the effect again after a
crash does not do it twice. The key lives in a ``ContextVar``: concurrent async runs
each see their own, and threads the shell starts for a performer or a tool get a copy.
Outside a keyed run :func:`effect_key` is None.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Final

import attrs

__all__ = ["EffectKey", "effect_key", "keyed"]


@attrs.frozen
class EffectKey:
    """The stable key of one effect: the run's id and the effect's 0-based number among its outcomes.

    Example:
        >>> str(EffectKey("order-17", 2))
        'order-17:2'
    """

    run_id: str
    seq: int

    def __str__(self) -> str:
        return f"{self.run_id}:{self.seq}"


_KEY: Final[contextvars.ContextVar[EffectKey | None]] = contextvars.ContextVar(
    "agentsm_fn_effect_key", default=None
)


def effect_key() -> EffectKey | None:
    """The key of the effect being performed, or None outside a keyed run.

    Example:
        >>> effect_key() is None
        True
        >>> with keyed(EffectKey("r1", 0)):
        ...     str(effect_key())
        'r1:0'
    """
    return _KEY.get()


@contextlib.contextmanager
def keyed(key: EffectKey) -> Iterator[EffectKey]:
    """Make ``key`` what :func:`effect_key` returns inside the ``with`` block (restored after).

    Example:
        >>> with keyed(EffectKey("r1", 4)) as key:
        ...     key.seq
        4
    """
    token = _KEY.set(key)
    try:
        yield key
    finally:
        _KEY.reset(token)
