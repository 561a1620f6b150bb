"""The names the durable runner takes from the effect-failure contract, in one place.

``EffectFailure``/``FailureKind`` (core), ``Effect.retry_safe``, and the idempotency key
(``keyed``/``EffectKey`` in the shell): see docs/effect-failures.md.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.shell.credentials import raised_failure
from agentsm_fn.shell.keys import EffectKey
from agentsm_fn.shell.keys import keyed as _keyed


def retry_safe(effect: Effect[object]) -> bool:
    """Whether performing ``effect`` twice is harmless (its ``retry_safe``)."""
    return effect.retry_safe is True


def raised(effect: Effect[object], exc: BaseException) -> EffectFailure:
    """The outcome that stands for a performer that raised: the shell's own, credentials redacted."""
    return raised_failure(effect, exc)


def unknown(effect: Effect[object]) -> EffectFailure:
    """The outcome of an effect that was in flight when its process died."""
    return EffectFailure.unknown(describe_effect(effect), "in flight when its process died")


def unrouted(outcome: object) -> bool | None:
    """What to do with the entry of an effect failure the machine did not take; None if not a failure.

    True: keep it as started (the outcome was unknown, so it stays unknown); False: drop it
    (perform the effect again once the cause is fixed, as an in-memory run would).
    """
    if isinstance(outcome, EffectFailure):
        return outcome.kind is FailureKind.UNKNOWN
    return None


def keyed(run_id: str, seq: int) -> AbstractContextManager[EffectKey]:
    """Make ``run_id:seq`` the idempotency key performers read while performing."""
    return _keyed(EffectKey(run_id, seq))
