"""The one private-slot write the engine keeps: building ``Success`` directly in ``emit`` and ``perform``.

``Success(value)`` runs two Python-level ``__init__`` frames (returns' ``Success`` and
its ``BaseContainer``); setting the value slot through its member descriptor builds
the identical value without them. Every pure transition builds one: without the direct
build a K = 3 run of ``benchmarks/engine.py`` costs 8.3% more instructions (callgrind)
and 9% more CPU time (best of alternated runs) in the reference variant, 6.4% and 4% in
the effects variant. :func:`perform` builds its ``Success`` (and the ``Perform`` tuple
inside, with ``tuple.__new__``) the same way: without it a K = 3 run of the effects
variant costs 8.6% more CPU time (2.09x to 1.91x of the baseline, best of alternated
runs; the reference variant does not perform). Every other direct build the engine once
used (``Success`` around the final snapshot, ``Snapshot``, ``Trace``, ``Journal``,
reading ``Success``'s slot) cost under 5% each to remove and now goes through the
public constructor; the figures are in issue 11's note.

:func:`success_setter` probes ``returns`` once at import: if the installed version lays
``Success`` out differently, it returns None and :func:`emit` calls the constructor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from returns.result import Success

__all__ = ["new_instance", "success_setter"]

new_instance: Final = object.__new__
"""``object.__new__``: an instance with no slot set yet."""


def success_setter() -> Callable[[object, object], None] | None:
    """The setter of ``Success``'s value slot, or None if a direct build would not equal ``Success(value)``.

    Example:
        >>> set_value = success_setter()
        >>> made = new_instance(Success); set_value(made, 1)
        >>> made == Success(1), hash(made) == hash(Success(1))
        (True, True)
    """
    try:
        defined = [
            klass.__dict__["_inner_value"] for klass in Success.__mro__ if "_inner_value" in klass.__dict__
        ]
        setter: Callable[[object, object], None] = defined[0].__set__
        probe = new_instance(Success)
        setter(probe, 1)
        same = probe == Success(1) and probe.unwrap() == 1 and hash(probe) == hash(Success(1))
        return setter if same else None
    except Exception:
        return None
