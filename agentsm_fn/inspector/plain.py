"""Stored values as plain JSON data for the inspector, redacted, and what changed between two of them.

:func:`plain` turns a run's memory (attrs classes, enums, persistent vectors and maps,
tuples, sets, bytes) into JSON-ready data: an attrs instance becomes an object of its
fields, an enum its member's name, bytes their length, and every string goes through
:func:`~agentsm_fn.shell.credentials.redact_credentials` (the project's one redaction),
so nothing the store holds is shown unredacted. :func:`changes` says which top-level
fields differ between two such objects; a list that only grew is given as what was
appended, so a long history costs what it adds per step, not its whole length.
:func:`memory_changes` says the same of two stored memories without turning either into
data: a memory is a value (handlers return a new memory, never change one), so a field that
is the same object as the step before did not change, and a sequence whose old items are
the same objects only grew; only what changed goes through :func:`plain`. A run's page
costs what each step changed, however long its memory has grown.
"""

from __future__ import annotations

import enum
import math
import operator
from collections.abc import Callable, Mapping, Set, Sized

import attrs
from pyrsistent import PMap, PVector

from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.credentials import credential_redactor

__all__ = ["Change", "apply_changes", "changes", "memory_changes", "plain"]

Change = dict[str, JsonValue]
"""One changed field: ``{"field": name, "value": new}``, ``{"field": name, "append": [items]}``, or
``{"field": name, "removed": True}`` (a mapping's key that is gone)."""


def plain(value: object, redact: Callable[[str], str] | None = None) -> JsonValue:
    """``value`` as JSON-ready data, every string redacted (by ``redact``, default the project's redaction).

    Example:
        >>> import attrs, enum
        >>> class Colour(enum.Enum):
        ...     RED = 1
        >>> @attrs.frozen
        ... class Order:
        ...     order_id: str
        ...     tags: tuple[str, ...] = ()
        ...     colour: Colour = Colour.RED
        >>> plain(Order("o-1", ("a",)))
        {'order_id': 'o-1', 'tags': ['a'], 'colour': 'RED'}
        >>> plain("Authorization: Bearer abcdefgh12345678")
        'Authorization: Bearer [redacted]'
    """
    redact = redact or credential_redactor()
    return _plain(value, redact)


def _plain(value: object, redact: Callable[[str], str]) -> JsonValue:
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    kind = type(value)
    if attrs.has(kind):
        fields = attrs.fields(kind)
        if not fields:
            return kind.__name__
        return {f.name: _plain(getattr(value, f.name), redact) for f in fields}
    if isinstance(value, Mapping | PMap):
        return {redact(str(k)): _plain(v, redact) for k, v in value.items()}
    if isinstance(value, Set):
        return [_plain(v, redact) for v in sorted(value, key=repr)]
    if isinstance(value, tuple | list | PVector):
        return [_plain(v, redact) for v in value]
    return redact(repr(value))


def changes(before: JsonValue, after: JsonValue) -> list[Change]:
    """The top-level fields of ``after`` that differ from ``before`` (both from :func:`plain`).

    Example:
        >>> changes({"n": 1, "log": ["a"]}, {"n": 2, "log": ["a", "b"]})
        [{'field': 'n', 'value': 2}, {'field': 'log', 'append': ['b']}]
        >>> changes({"n": 1}, {"n": 1})
        []
        >>> changes({"n": 1, "gone": 2}, {"n": 1})
        [{'field': 'gone', 'removed': True}]
    """
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [] if before == after else [{"field": "", "value": after}]
    found: list[Change] = []
    for name, new in after.items():
        old = before.get(name)
        if name in before and old == new:
            continue
        if isinstance(old, list) and isinstance(new, list) and len(new) > len(old) and new[: len(old)] == old:
            found.append({"field": name, "append": new[len(old) :]})
        else:
            found.append({"field": name, "value": new})
    found.extend({"field": name, "removed": True} for name in before if name not in after)
    return found


def memory_changes(before: object, after: object, redact: Callable[[str], str] | None = None) -> list[Change]:
    """``changes(plain(before), plain(after))``, turning into data only the fields that changed.

    A field that is the same object in both memories is unchanged; a tuple, list or persistent
    vector whose first items are the same objects as all of the old one's is given as what was
    appended. Anything else is compared as :func:`changes` compares it.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Memo:
        ...     n: int
        ...     log: tuple[str, ...]
        >>> one = Memo(1, ("a",))
        >>> memory_changes(one, Memo(2, (*one.log, "b")))
        [{'field': 'n', 'value': 2}, {'field': 'log', 'append': ['b']}]
        >>> memory_changes(one, attrs.evolve(one, n=1))
        []
    """
    redact = redact or credential_redactor()
    old, new = _fields(before), _fields(after)
    if old is None or new is None or type(before) is not type(after):
        return changes(_plain(before, redact), _plain(after, redact))
    gone = [name for name in old if name not in new]
    if isinstance(before, Mapping | PMap) and any(redact(name) != name for name in gone):
        return changes(_plain(before, redact), _plain(after, redact))
    found: list[Change] = []
    for name, value in new.items():
        was = old.get(name, _ABSENT)
        if was is value:
            continue
        if isinstance(before, Mapping | PMap) and redact(name) != name:  # as plain shows a redacted key
            return changes(_plain(before, redact), _plain(after, redact))
        if _grew(was, value):
            assert isinstance(was, Sized) and isinstance(value, _SEQUENCES)
            found.append({"field": name, "append": [_plain(v, redact) for v in value[len(was) :]]})
        else:
            found.extend(
                changes({} if was is _ABSENT else {name: _plain(was, redact)}, {name: _plain(value, redact)})
            )
    found.extend({"field": name, "removed": True} for name in gone)
    return found


_ABSENT = object()


_SEQUENCES = (tuple, list, PVector)


def _fields(memory: object) -> Mapping[str, object] | None:
    """A memory's top-level fields by name (as :func:`plain` names them), or None if it has none."""
    kind = type(memory)
    if attrs.has(kind):
        fields = attrs.fields(kind)
        return {f.name: getattr(memory, f.name) for f in fields} if fields else None
    if isinstance(memory, Mapping | PMap):
        return (
            {str(k): v for k, v in memory.items()} if len(memory) == len({str(k) for k in memory}) else None
        )
    return None


def _grew(old: object, new: object) -> bool:
    """``new`` is ``old`` with items appended: the same kind of sequence, its first items the same objects."""
    return (
        isinstance(old, _SEQUENCES)
        and isinstance(new, _SEQUENCES)
        and len(new) > len(old)
        and all(map(operator.is_, old, new))
    )


def apply_changes(memory: JsonValue, found: list[Change]) -> JsonValue:
    """``memory`` with ``found`` applied: the inverse of :func:`changes` (the page does the same).

    Example:
        >>> before, after = {"n": 1, "log": ["a"]}, {"n": 2, "log": ["a", "b"]}
        >>> apply_changes(before, changes(before, after)) == after
        True
    """
    if not isinstance(memory, dict):
        return next((c["value"] for c in found if c.get("field") == ""), memory)
    result = dict(memory)
    for change in found:
        name = str(change["field"])
        if "append" in change:
            old, added = result.get(name), change["append"]
            result[name] = [
                *(old if isinstance(old, list) else []),
                *(added if isinstance(added, list) else []),
            ]
        elif name == "":
            return change["value"]
        elif change.get("removed"):
            result.pop(name, None)
        else:
            result[name] = change["value"]
    return result
