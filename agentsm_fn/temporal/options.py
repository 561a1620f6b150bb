"""How each effect type runs as a Temporal activity: timeouts, heartbeats and retries.

An effect that is not retry-safe (``effect.retry_safe`` false, the default) gets one
attempt whatever its options say: if that attempt fails, times out or its worker
dies, the run receives an ``EffectFailure`` and the machine decides. A retry-safe
effect (LLM calls, tools marked ``retry_safe``) is retried by Temporal within its
options; every attempt reads the same idempotency key.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

import attrs
from temporalio.common import RetryPolicy

__all__ = ["ActivitySettings", "EffectOptions", "activity_options", "options_for"]


def _positive(_instance: object, attribute: attrs.Attribute[float], value: float | None) -> None:
    if value is not None and not value > 0:
        raise ValueError(f"EffectOptions.{attribute.name} must be > 0 seconds, got {value!r}")


@attrs.frozen(kw_only=True)
class EffectOptions:
    """Activity options for one effect type (seconds; None: no limit of that kind).

    ``timeout`` bounds one attempt (Temporal's start-to-close timeout);
    ``heartbeat``: the activity heartbeats every third of it while the performer runs,
    so a worker that dies is noticed after ``heartbeat`` seconds instead of ``timeout``;
    ``attempts``, ``backoff``, ``max_backoff``: the retry policy of a retry-safe effect.
    ``schedule_to_close`` bounds all attempts together.

    Example:
        >>> EffectOptions(timeout=30, heartbeat=5).attempts
        3
    """

    timeout: float = attrs.field(default=300.0, validator=_positive)
    heartbeat: float | None = attrs.field(default=None, validator=_positive)
    attempts: int = 3
    backoff: float = attrs.field(default=1.0, validator=_positive)
    max_backoff: float = attrs.field(default=60.0, validator=_positive)
    schedule_to_close: float | None = attrs.field(default=None, validator=_positive)

    def __attrs_post_init__(self) -> None:
        if type(self.attempts) is not int or self.attempts < 1:
            raise ValueError(f"EffectOptions.attempts must be an int >= 1, got {self.attempts!r}")


def _seconds(value: float | None) -> timedelta | None:
    return None if value is None else timedelta(seconds=value)


def options_for(
    effect_type: type, table: Mapping[type, EffectOptions], default: EffectOptions
) -> EffectOptions:
    """The options registered for ``effect_type`` or its nearest base class, else ``default``.

    Example:
        >>> class Base: ...
        >>> class Child(Base): ...
        >>> options_for(Child, {Base: EffectOptions(timeout=5)}, EffectOptions()).timeout
        5
    """
    for klass in effect_type.__mro__:
        found = table.get(klass)
        if found is not None:
            return found
    return default


@attrs.frozen(kw_only=True)
class ActivitySettings:
    """What ``workflow.execute_activity`` is given for one effect."""

    start_to_close: timedelta | None
    heartbeat: timedelta | None
    schedule_to_close: timedelta | None
    retry_policy: RetryPolicy


def activity_options(options: EffectOptions, retry_safe: bool) -> ActivitySettings:
    """The activity settings of an effect with ``options`` (one attempt unless ``retry_safe``).

    Example:
        >>> activity_options(EffectOptions(attempts=5), retry_safe=False).retry_policy.maximum_attempts
        1
    """
    policy = RetryPolicy(
        initial_interval=timedelta(seconds=options.backoff),
        maximum_interval=timedelta(seconds=max(options.backoff, options.max_backoff)),
        maximum_attempts=options.attempts if retry_safe else 1,
    )
    return ActivitySettings(
        start_to_close=_seconds(options.timeout),
        heartbeat=_seconds(options.heartbeat),
        schedule_to_close=_seconds(options.schedule_to_close),
        retry_policy=policy,
    )
