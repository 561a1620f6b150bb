"""The effect-failure contract (durable runs, item 1) as this adapter uses it.

TEMPORARY: until ``EffectFailure``, ``FailureKind``, ``EffectKey``, ``effect_key`` and
``keyed`` are in main (branch durable-core), this module holds stand-ins with the
contract's names and shapes; afterwards it only re-exports the real ones.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
from collections.abc import Iterator

import attrs

try:  # pragma: no cover - which branch runs depends on whether durable-core is merged
    from agentsm_fn.core import EffectFailure, FailureKind  # type: ignore[attr-defined,unused-ignore]
    from agentsm_fn.shell import EffectKey, effect_key, keyed  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover

    class FailureKind(enum.Enum):  # type: ignore[no-redef]
        """Stand-in: why an effect has no outcome."""

        RAISED = "raised"
        TIMED_OUT = "timed_out"
        REJECTED = "rejected"
        UNKNOWN = "unknown"

    @attrs.frozen(kw_only=True)
    class EffectFailure:  # type: ignore[no-redef]
        """Stand-in: an effect's failure, delivered as its outcome."""

        kind: FailureKind
        effect: str
        detail: str = ""

    @attrs.frozen
    class EffectKey:  # type: ignore[no-redef]
        """Stand-in: the idempotency key of one effect of one run."""

        run_id: str
        seq: int

        def __str__(self) -> str:
            return f"{self.run_id}:{self.seq}"

    _KEY: contextvars.ContextVar[EffectKey | None] = contextvars.ContextVar(
        "agentsm_effect_key", default=None
    )

    def effect_key() -> EffectKey | None:
        """Stand-in: the key of the effect being performed."""
        return _KEY.get()

    @contextlib.contextmanager
    def keyed(key: EffectKey) -> Iterator[None]:
        """Stand-in: set the key around a perform."""
        token = _KEY.set(key)
        try:
            yield
        finally:
            _KEY.reset(token)


__all__ = ["EffectFailure", "EffectKey", "FailureKind", "effect_key", "keyed"]
