"""Performers: the functions that carry out effects, looked up by effect type.

A performer takes an effect and returns its outcome (or :data:`SUSPEND` to pause
the run and hand back an awaiting snapshot, as a human approval queue does).
Lookup follows the effect class's MRO, so one performer can serve a family of
effects. Async performers are used by ``arun``; sync ones by both.

A performer that raises delivers ``EffectFailure(RAISED)`` to the run; one registered
with ``timeout=seconds`` that runs longer delivers ``EffectFailure(TIMED_OUT)`` (see
:mod:`agentsm_fn.shell.timeouts` for what is enforced on sync performers). The machine
decides what a failure means (docs/effect-failures.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TypeAlias, TypeVar, cast

import attrs

from agentsm_fn.core.effects import Effect
from agentsm_fn.shell.timeouts import TimedPerformer, timed_async

__all__ = ["AsyncPerformer", "Performer", "Performers"]

EffectT = TypeVar("EffectT", bound=Effect[object])

Performer: TypeAlias = Callable[[Effect[object]], object]
"""Performs an effect synchronously and returns its outcome (or SUSPEND)."""
AsyncPerformer: TypeAlias = Callable[[Effect[object]], Awaitable[object]]
"""Performs an effect asynchronously."""


def _read_only(table: Mapping[type, Performer]) -> Mapping[type, Performer]:
    """A private read-only copy of ``table`` (a caller's dict cannot change it later)."""
    return MappingProxyType(dict(table))


def _read_only_async(table: Mapping[type, AsyncPerformer]) -> Mapping[type, AsyncPerformer]:
    """:func:`_read_only` for the async table."""
    return MappingProxyType(dict(table))


@attrs.frozen
class Performers:
    """An immutable registry from effect type to performer.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Ask(Effect[str]):
        ...     outcome_types = (str,)
        >>> p = Performers().on(Ask, lambda effect: "yes")
        >>> p.find(Ask())(Ask())
        'yes'
    """

    sync: Mapping[type, Performer] = attrs.field(factory=dict, converter=_read_only)
    asynchronous: Mapping[type, AsyncPerformer] = attrs.field(factory=dict, converter=_read_only_async)
    # What the shell found to perform each plain effect type under run / arun, filled as
    # it goes: the tables above are private read-only copies, so an entry never goes stale.
    _run_cache: dict[type, Performer | None] = attrs.field(
        init=False, factory=dict, eq=False, repr=False, hash=False
    )
    _arun_cache: dict[type, Performer | None] = attrs.field(
        init=False, factory=dict, eq=False, repr=False, hash=False
    )
    _async_cache: dict[type, AsyncPerformer] = attrs.field(
        init=False, factory=dict, eq=False, repr=False, hash=False
    )

    def on(
        self, kind: type[EffectT], fn: Callable[[EffectT], object], *, timeout: float | None = None
    ) -> Performers:
        """A registry that performs ``kind`` effects with ``fn`` (within ``timeout`` seconds if given).

        Example:
            >>> import attrs, time
            >>> @attrs.frozen
            ... class Nap(Effect[str]):
            ...     outcome_types = (str,)
            >>> slow = Performers().on(Nap, lambda effect: time.sleep(5) or "late", timeout=0.01)
            >>> slow.find(Nap())(Nap()).kind.name
            'TIMED_OUT'
        """
        # fn only ever receives instances of ``kind`` (find() looks up by type).
        performer = cast(Performer, fn)
        table = {**self.sync, kind: performer if timeout is None else TimedPerformer(performer, timeout)}
        return attrs.evolve(self, sync=MappingProxyType(table))

    def on_async(
        self,
        kind: type[EffectT],
        fn: Callable[[EffectT], Awaitable[object]],
        *,
        timeout: float | None = None,
    ) -> Performers:
        """A registry that performs ``kind`` effects with the coroutine ``fn`` (within ``timeout`` s)."""
        performer = cast(AsyncPerformer, fn)
        table = {**self.asynchronous, kind: performer if timeout is None else timed_async(performer, timeout)}
        return attrs.evolve(self, asynchronous=MappingProxyType(table))

    def merge(self, other: Performers) -> Performers:
        """A registry with ``other``'s performers added (``other`` wins on conflict)."""
        return Performers(
            MappingProxyType({**self.sync, **other.sync}),
            MappingProxyType({**self.asynchronous, **other.asynchronous}),
        )

    def find(self, effect: Effect[object]) -> Performer | None:
        """The sync performer for ``effect`` (its ``underlying()`` effect), by MRO; None if none."""
        found = _lookup(self.sync, effect)
        return None if found is None else found[0] if found[1] is effect else _delegating(*found)

    def find_async(self, effect: Effect[object]) -> AsyncPerformer | None:
        """The async performer for ``effect`` (its ``underlying()`` effect), by MRO; None if none."""
        found = _lookup(self.asynchronous, effect)
        return None if found is None else found[0] if found[1] is effect else _delegating_async(*found)


_FnT = TypeVar("_FnT")


def _lookup(table: Mapping[type, _FnT], effect: Effect[object]) -> tuple[_FnT, Effect[object]] | None:
    """The function registered for the effect's ``underlying()`` type (by MRO), and that effect."""
    target = effect.underlying()
    for klass in type(target).__mro__:
        fn = table.get(klass)
        if fn is not None:
            return fn, target
    return None


def _delegating(fn: Performer, target: Effect[object]) -> Performer:
    if type(fn) is TimedPerformer:  # keep the limit (and arun's threaded wait) for the carried effect
        return fn.bound(target)
    return lambda _wrapper: fn(target)


def _delegating_async(fn: AsyncPerformer, target: Effect[object]) -> AsyncPerformer:
    return lambda _wrapper: fn(target)
