"""Direct construction of the few frozen values the run loop builds on every run.

An attrs frozen class's ``__init__`` sets each field through ``object.__setattr__``
with keyword arguments; for the snapshot, trace and journal the engine builds at the
end of every run that is most of the run's fixed cost (measured with
``benchmarks/engine.py``). Setting the slots through their member descriptors builds
the identical value in about half the time. :func:`slot_setters` checks, once at
import, that a class is a plain slotted attrs class (no validators, converters,
``__attrs_post_init__``) with exactly the expected fields, so the direct build is
only ever used where it is equivalent (every slot is a field: no hidden state such as
attrs' cached hash); the callers fall back to the constructor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

import attrs

__all__ = ["new_instance", "one_field_builder", "slot_setters"]

_T = TypeVar("_T")

SlotSetter = Callable[[object, object], None]

new_instance: Final = object.__new__
"""``object.__new__``: an instance with no slot set yet."""

_MEMBER: Final = type(attrs.Attribute.__dict__["name"])  # the type of a __slots__ member descriptor


def slot_setters(cls: type, names: tuple[str, ...]) -> tuple[SlotSetter, ...] | None:
    """The slot setters of ``cls``'s fields ``names``, or None if a direct build is not equivalent.

    Example:
        >>> @attrs.frozen
        ... class Point:
        ...     x: int
        ...     y: int
        >>> set_x, set_y = slot_setters(Point, ("x", "y"))
        >>> p = new_instance(Point); set_x(p, 1); set_y(p, 2)
        >>> p == Point(1, 2)
        True
        >>> slot_setters(Point, ("x",)) is None  # not every field
        True
    """
    if not attrs.has(cls) or hasattr(cls, "__attrs_post_init__") or hasattr(cls, "__attrs_pre_init__"):
        return None
    fields = attrs.fields(cls)
    if tuple(field.name for field in fields) != names:
        return None
    if any(field.validator is not None or field.converter is not None for field in fields):
        return None
    slots = {name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())} - {"__weakref__"}
    if slots != set(names):  # e.g. cache_hash=True: the constructor also sets a hidden slot
        return None
    setters: list[SlotSetter] = []
    for name in names:
        defined = [klass.__dict__[name] for klass in cls.__mro__ if name in klass.__dict__]
        if not defined or type(defined[0]) is not _MEMBER:
            return None
        setters.append(defined[0].__set__)
    return tuple(setters)


def one_field_builder(cls: type[_T], name: str) -> Callable[[object], _T]:
    """A function building ``cls`` from its one field ``name``: directly if equivalent, else ``cls(value)``.

    Example:
        >>> @attrs.frozen
        ... class Box:
        ...     content: int
        >>> one_field_builder(Box, "content")(3) == Box(3)
        True
    """
    setters = slot_setters(cls, (name,))
    if setters is None:
        return cls
    (set_field,) = setters

    def build(value: object) -> _T:
        made: _T = new_instance(cls)
        set_field(made, value)
        return made

    return build
