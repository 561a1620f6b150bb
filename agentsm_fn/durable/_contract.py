"""The few names the durable runner takes from the effect-failure contract, in one place.

Until ``EffectFailure``/``FailureKind``/``keyed`` are in the core and shell, an effect that
raised or was in flight at a crash has no failure value: the run stops with a typed error
instead (and nothing is lost). Once they land, these four functions use them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from agentsm_fn.core.effects import Effect


def retry_safe(effect: Effect[object]) -> bool:
    """Whether performing ``effect`` twice is harmless (its ``retry_safe`` attribute; default False)."""
    return getattr(effect, "retry_safe", False) is True


def raised(effect: Effect[object], exc: BaseException) -> object | None:
    """The outcome that stands for a performer that raised, or None if there is none yet."""
    return None


def unknown(effect: Effect[object]) -> object | None:
    """The outcome of an effect in flight at a crash, or None if there is none yet."""
    return None


@contextlib.contextmanager
def keyed(run_id: str, seq: int) -> Iterator[None]:
    """Make ``run_id:seq`` the idempotency key performers read while performing."""
    yield
