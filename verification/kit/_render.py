"""Private: short, readable reprs for counterexamples (attrs values show only non-default fields)."""

from __future__ import annotations

from typing import cast

import attrs

_FACTORY: type = type(attrs.Factory(list))


def _default(field: attrs.Attribute[object]) -> tuple[bool, object]:
    default = field.default
    if default is attrs.NOTHING:
        return False, None
    if isinstance(default, _FACTORY):
        if getattr(default, "takes_self", False):
            return False, None
        return True, getattr(default, "factory")()  # noqa: B009 - the stubs type Factory as a function
    return True, default


def at_default(field: attrs.Attribute[object], current: object) -> bool:
    """Whether ``current`` equals ``field``'s default (False when it has none, or ``==`` raises)."""
    has_default, default = _default(field)
    try:
        return has_default and bool(current == default)
    except Exception:  # an odd __eq__ must not break a report
        return False


def render(value: object) -> str:
    """``repr`` of ``value``, with attrs instances reduced to their non-default fields."""
    if isinstance(value, tuple):
        inner = ", ".join(render(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if not attrs.has(type(value)):
        return repr(value)
    shown: list[str] = []
    for field in attrs.fields(cast(type[attrs.AttrsInstance], type(value))):
        current = getattr(value, field.name)
        if not at_default(field, current):
            shown.append(f"{field.name}={render(current)}")
    return f"{type(value).__name__}({', '.join(shown)})"


def short(value: object, width: int = 160) -> str:
    """:func:`render`, cut to ``width`` characters."""
    text = render(value)
    return text if len(text) <= width else text[: width - 1] + "…"
