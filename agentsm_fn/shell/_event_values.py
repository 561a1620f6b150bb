"""The history events a run stream makes for every row and outcome, built without keyword parsing.

A stream builds one event per trace row and per outcome; most of what building a frozen
attrs value costs is its ``__init__``'s keyword arguments and one ``object.__setattr__``
call per field. These builders make the same values (the classes of
:mod:`agentsm_fn.stream.events`, equal to what their constructors make, with the same
repr, JSON form and ``attrs.evolve``) from positional arguments, setting each slot
directly. They apply only to classes with no validators, converters or post-init hook:
:func:`_slot_setters` refuses any other, so a field gaining one fails at import, not
silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import attrs

from agentsm_fn.stream.events import EffectCompleted, EffectRequested, OutcomeKind, Transitioned

__all__ = ["effect_completed", "effect_requested", "transitioned"]

_new: Final = object.__new__


def _slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Callable[[object, object], None], ...]:
    """The slot setters of ``cls``'s fields, in the order ``names`` gives (all of its fields)."""
    fields = attrs.fields(cls)
    if tuple(field.name for field in fields) != names:
        raise TypeError(f"{cls.__name__}'s fields are {[f.name for f in fields]}, not {list(names)}")
    if any(field.validator is not None or field.converter is not None for field in fields) or hasattr(
        cls, "__attrs_post_init__"
    ):
        raise TypeError(f"{cls.__name__} checks or converts its fields: build it with its constructor")
    setters: tuple[Callable[[object, object], None], ...] = tuple(
        cls.__dict__[name].__set__ for name in names
    )
    return setters


_TRANSITIONED: Final = _slot_setters(
    Transitioned, ("run_id", "position", "step", "state", "event", "target", "at", "data")
)
_REQUESTED: Final = _slot_setters(
    EffectRequested, ("run_id", "position", "state", "effect", "summary", "part")
)
_COMPLETED: Final = _slot_setters(
    EffectCompleted,
    ("run_id", "position", "requested", "effect", "outcome", "note", "seconds", "part", "value"),
)


def transitioned(
    run_id: str, position: int, step: int, state: str, event: str, target: str, at: float, data: str = ""
) -> Transitioned:
    """``Transitioned(run_id=run_id, position=position, ...)``, the fields in their order.

    Example:
        >>> transitioned("r", 1, 1, "A", "GO", "B", 0.0) == Transitioned(
        ...     run_id="r", position=1, step=1, state="A", event="GO", target="B", at=0.0)
        True
    """
    made: Transitioned = _new(Transitioned)
    s = _TRANSITIONED
    s[0](made, run_id)
    s[1](made, position)
    s[2](made, step)
    s[3](made, state)
    s[4](made, event)
    s[5](made, target)
    s[6](made, at)
    s[7](made, data)
    return made


def effect_requested(
    run_id: str, position: int, state: str, effect: str, summary: str, part: int | None
) -> EffectRequested:
    """``EffectRequested(run_id=run_id, position=position, ...)``, the fields in their order.

    Example:
        >>> effect_requested("r", 2, "A", "Ask", "Ask 'x'", None) == EffectRequested(
        ...     run_id="r", position=2, state="A", effect="Ask", summary="Ask 'x'")
        True
    """
    made: EffectRequested = _new(EffectRequested)
    s = _REQUESTED
    s[0](made, run_id)
    s[1](made, position)
    s[2](made, state)
    s[3](made, effect)
    s[4](made, summary)
    s[5](made, part)
    return made


def effect_completed(
    run_id: str,
    position: int,
    requested: int,
    effect: str,
    outcome: OutcomeKind,
    note: str,
    seconds: float,
    part: int | None,
    value: object,
) -> EffectCompleted:
    """``EffectCompleted(run_id=run_id, position=position, ...)``, the fields in their order.

    Example:
        >>> effect_completed("r", 3, 2, "Ask", OutcomeKind.OK, "ok", 0.5, None, "yes") == EffectCompleted(
        ...     run_id="r", position=3, requested=2, effect="Ask", outcome=OutcomeKind.OK, note="ok",
        ...     seconds=0.5)
        True
    """
    made: EffectCompleted = _new(EffectCompleted)
    s = _COMPLETED
    s[0](made, run_id)
    s[1](made, position)
    s[2](made, requested)
    s[3](made, effect)
    s[4](made, outcome)
    s[5](made, note)
    s[6](made, seconds)
    s[7](made, part)
    s[8](made, value)
    return made
