"""Private: every value of a small Hypothesis strategy, for exhaustive exploration.

Hypothesis draws values; it does not list them. For the finite strategies outcome sets are
made of (``just``, ``none``, ``booleans``, ``sampled_from``, bounded ``integers``,
``one_of``/``|``, ``tuples``, and ``.map``/``.filter`` of those) this module lists every
value by reading the strategy's structure. Those structures are Hypothesis internals:
``tests/explore/test_enumerate.py`` checks each kind against the values Hypothesis draws,
so an upgrade that moves them fails there, loudly. Anything else is :class:`NotEnumerable`,
whose message says what to give instead (a value list: ``Outcomes.on(..., examples=...)``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from hypothesis import strategies as st

__all__ = ["NotEnumerable", "enumerate_strategy"]

LIMIT = 256
"""The most values one strategy may list."""


class NotEnumerable(ValueError):
    """A strategy whose values cannot be listed (unknown kind, unbounded, or too many)."""


def _dedupe(values: list[object]) -> list[object]:
    seen: list[object] = []
    for value in values:
        if not any(type(value) is type(s) and value == s for s in seen):
            seen.append(value)
    return seen


def _transform(values: list[object], steps: tuple[tuple[object, ...], ...]) -> list[object]:
    for step in steps:
        kind, fn = step[0], step[1]
        assert callable(fn)
        values = [fn(v) for v in values] if kind == "map" else [v for v in values if fn(v)]
    return values


def _listed(strategy: object) -> list[object]:
    while hasattr(strategy, "wrapped_strategy"):
        strategy = strategy.wrapped_strategy
    name = type(strategy).__name__
    if name == "BooleansStrategy":
        return [False, True]
    if name in ("SampledFromStrategy", "JustStrategy"):
        elements = list(getattr(strategy, "elements", ()))
        return _transform(elements, tuple(getattr(strategy, "_transformations", ())))
    if name == "IntegersStrategy":
        start, end = getattr(strategy, "start", None), getattr(strategy, "end", None)
        if isinstance(start, int) and isinstance(end, int) and end - start < LIMIT:
            return list(range(start, end + 1))
    if name == "OneOfStrategy":
        return [v for inner in getattr(strategy, "original_strategies", ()) for v in _listed(inner)]
    if name == "TupleStrategy":
        parts = [_listed(inner) for inner in getattr(strategy, "element_strategies", ())]
        if _size(parts) <= LIMIT:
            return [tuple(p) for p in itertools.product(*parts)]
    if name == "MappedStrategy":
        pack: Callable[[object], object] = getattr(strategy, "pack")  # noqa: B009 - an internal
        return [pack(v) for v in _listed(getattr(strategy, "mapped_strategy"))]  # noqa: B009
    if name == "FilteredStrategy":
        conditions = tuple(getattr(strategy, "flat_conditions", ()))
        inner = _listed(getattr(strategy, "filtered_strategy"))  # noqa: B009 - an internal
        return [v for v in inner if all(c(v) for c in conditions)]
    raise NotEnumerable(
        f"cannot list the values of {strategy!r}: give a value list instead "
        "(Outcomes().on(EffectType, strategy, examples=lambda effect: (value, ...)))"
    )


def _size(parts: list[list[object]]) -> int:
    size = 1
    for part in parts:
        size *= len(part)
    return size


def enumerate_strategy(strategy: st.SearchStrategy[object]) -> tuple[object, ...]:
    """Every value ``strategy`` can draw, each once, in its order; :class:`NotEnumerable` otherwise.

    Example:
        >>> enumerate_strategy(st.booleans() | st.sampled_from(("a", "b")).map(str.upper))
        (False, True, 'A', 'B')
        >>> enumerate_strategy(st.tuples(st.just(1), st.integers(0, 1)))
        ((1, 0), (1, 1))
    """
    values = _dedupe(_listed(strategy))
    if len(values) > LIMIT:
        raise NotEnumerable(f"{strategy!r} has more than {LIMIT} values: give a value list instead")
    return tuple(values)
