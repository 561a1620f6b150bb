"""Two observers as one: every run told to both (a trace exporter and a live view, say).

Each keeps its own watches; an effect that is a part of another (a call of a tool batch)
is reported to each observer as a part of that observer's own watch of the batch. One that
raises is logged and the other is told all the same (a bug in an application's observer
must not cost a run stream an event). A trace carrier (``trace_carrier``/``continuing``,
see docs/durable-runs.md) is taken from the first observer that is one.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import ParamSpec, TypeVar

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunObserver, RunStart, RunWatch

__all__ = ["Both"]

_log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")


def _tell(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
    """``call(*args)``; one that raises is logged (its result then None) and the other observer goes on."""
    try:
        return call(*args, **kwargs)
    except Exception:
        name = getattr(call, "__name__", "a callback")
        _log.exception("an observer raised in %s; the other observer is told all the same", name)
        return None


class _BothEffects:
    __slots__ = ("first", "second")

    def __init__(self, first: EffectWatch | None, second: EffectWatch | None) -> None:
        self.first, self.second = first, second

    def effect_ended(self, outcome: object, seconds: float) -> None:
        for watch in (self.first, self.second):
            if watch is not None:
                _tell(watch.effect_ended, outcome, seconds)

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        for watch in (self.first, self.second):
            if watch is not None:
                _tell(watch.effect_raised, error, seconds)

    def streamed(self, delta: object) -> None:
        for watch in (self.first, self.second):
            streamed = getattr(watch, "streamed", None)
            if streamed is not None:
                _tell(streamed, delta)


_Requested = Callable[[int, enum.Enum, str, str, float], None]
"""A watch's optional ``effect_requested`` (see :mod:`agentsm_fn.core.observe`)."""
_MemoryAfter = Callable[[int, object], None]
"""A watch's optional ``memory_after`` (see :mod:`agentsm_fn.core.observe`)."""


def _either(name: str, first: object, second: object) -> Callable[..., None] | None:
    """What calls the optional method ``name`` of whichever of ``first`` and ``second`` has it.

    None when neither has it: the shell then skips what it reports, as for one such watch.
    """
    wanted: list[Callable[..., None]] = [
        found for watch in (first, second) if (found := getattr(watch, name, None)) is not None
    ]
    if len(wanted) < 2:
        return wanted[0] if wanted else None
    one, other = wanted

    def both(*args: object) -> None:
        _tell(one, *args)
        _tell(other, *args)

    return both


class _BothRuns:
    __slots__ = ("effect_requested", "first", "memory_after", "second")

    def __init__(self, first: RunWatch | None, second: RunWatch | None) -> None:
        self.first, self.second = first, second
        self.effect_requested: _Requested | None = _either("effect_requested", first, second)
        self.memory_after: _MemoryAfter | None = _either("memory_after", first, second)

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        for watch in (self.first, self.second):
            if watch is not None:
                _tell(watch.transition, step, state, event, target, at)

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        first_within, second_within = (
            (within.first, within.second) if isinstance(within, _BothEffects) else (None, None)
        )
        first = None if self.first is None else _tell(self.first.effect_started, effect, first_within)
        second = None if self.second is None else _tell(self.second.effect_started, effect, second_within)
        return _BothEffects(first, second)

    def run_ended(self, end: RunEnd) -> None:
        for watch in (self.first, self.second):
            if watch is not None:
                _tell(watch.run_ended, end)


class Both:
    """An observer that tells ``first`` and ``second`` about every run.

    Example:
        >>> from agentsm_fn import Shell
        >>> class Quiet:
        ...     def run_started(self, start: RunStart) -> RunWatch | None:
        ...         return None
        >>> Shell(observer=Both(Quiet(), Quiet())).observer.first.__class__.__name__
        'Quiet'
    """

    def __init__(self, first: RunObserver, second: RunObserver) -> None:
        self.first, self.second = first, second

    def run_started(self, start: RunStart) -> RunWatch | None:
        """Both observers' watches (None if both decline)."""
        first, second = _tell(self.first.run_started, start), _tell(self.second.run_started, start)
        if first is None and second is None:
            return None
        return _BothRuns(first, second)

    def trace_carrier(self) -> Mapping[str, str]:
        """The trace context from the first observer that carries one (``{}`` if none)."""
        for observer in (self.first, self.second):
            carrier = getattr(observer, "trace_carrier", None)
            if callable(carrier):
                found = carrier()
                if isinstance(found, Mapping) and found:
                    return found
        return {}

    def continuing(self, carrier: Mapping[str, str]) -> AbstractContextManager[None]:
        """Continue inside the first observer's ``continuing`` that has one."""
        for observer in (self.first, self.second):
            continuing = getattr(observer, "continuing", None)
            if callable(continuing):
                found = continuing(carrier)
                if isinstance(found, AbstractContextManager):
                    return found
        return contextlib.nullcontext()
