"""Clocks: the one place the library reads the time.

A clock is any ``() -> float`` returning seconds since the epoch. The shell reads
it once per handler call and once per effect outcome and journals every reading,
so replay needs no clock at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeAlias

import attrs

__all__ = ["Clock", "StepClock", "system_clock"]

Clock: TypeAlias = Callable[[], float]
"""Seconds since the epoch."""


def system_clock() -> float:
    """The wall clock (``time.time``).

    Example:
        >>> system_clock() > 1_600_000_000
        True
    """
    return time.time()


@attrs.define
class StepClock:
    """A deterministic clock for tests and demos: ``start``, then ``start + step``, ...

    Example:
        >>> c = StepClock(start=10.0, step=0.5)
        >>> c(), c(), c()
        (10.0, 10.5, 11.0)
    """

    start: float = 0.0
    step: float = 1.0
    readings: int = 0

    def __call__(self) -> float:
        value = self.start + self.step * self.readings
        self.readings += 1
        return value
