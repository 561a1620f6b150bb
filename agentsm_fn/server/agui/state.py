"""A memory as AG-UI state: its public fields as JSON, and a change as a JSON Patch.

AG-UI state is any JSON value the frontend keeps; ours is an object of the memory's
*public* fields (attrs fields whose name does not start with ``_``), each converted by the
server's :func:`~agentsm_fn.server.values.public_json` (the JSON the run API shows a memory
as: enums as values, vectors as lists, maps as objects, every string with credentials
redacted). A change is sent as an RFC 6902 patch made by ``jsonpatch``, which the client
applies to the state it holds. A run's memories are shown one after another by a
:class:`Shown`, which converts only the fields whose value is not the object it converted
last time (a frozen memory keeps the fields a step did not touch), and :func:`state_patch`
compares only the fields whose JSON is not the same object: a step costs what it changed,
not the whole memory.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import jsonpatch

from agentsm_fn.llm.json import JsonObject, JsonValue
from agentsm_fn.server.values import public_json

__all__ = ["Shown", "public_state", "state_patch"]


def public_state(memory: object) -> JsonObject:
    """The memory's public fields as a JSON object, credentials redacted.

    A memory that is not an attrs class is shown whole under ``"memory"``.

    Example:
        >>> @attrs.frozen
        ... class Order:
        ...     item: str
        ...     tags: frozenset[str] = frozenset()
        ...     _secret: str = "x"
        >>> public_state(Order(item="tea", tags=frozenset({"hot"})))
        {'item': 'tea', 'tags': ['hot']}
    """
    kind = type(memory)
    if not attrs.has(kind):
        return {"memory": public_json(memory)}
    return {f.name: public_json(getattr(memory, f.name)) for f in attrs.fields(kind) if f.name[:1] != "_"}


class Shown:
    """One run's memories as AG-UI state, in turn: :func:`public_state`, reusing unchanged fields' JSON.

    Example:
        >>> @attrs.frozen
        ... class Order:
        ...     item: str
        ...     count: int = 0
        >>> shown = Shown()
        >>> first = shown(Order(item="tea"))
        >>> second = shown(attrs.evolve(Order(item="tea"), count=2))
        >>> second
        {'item': 'tea', 'count': 2}
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[object, JsonValue]] = {}

    def __call__(self, memory: object) -> JsonObject:
        """``memory``'s public fields as JSON (see :func:`public_state`)."""
        kind = type(memory)
        if not attrs.has(kind):
            return public_state(memory)
        last, shown = self._last, {}
        for field in attrs.fields(kind):
            name = field.name
            if name[:1] == "_":
                continue
            value = getattr(memory, name)
            kept = last.get(name)
            if kept is None or kept[0] is not value:
                kept = last[name] = (value, public_json(value))  # the value is held: its id stays its own
            shown[name] = kept[1]
        return shown


def state_patch(before: Mapping[str, JsonValue], after: Mapping[str, JsonValue]) -> list[dict[str, object]]:
    """The RFC 6902 operations that turn ``before`` into ``after`` (empty when they are equal).

    Fields whose JSON is the same object in both are not compared.

    Example:
        >>> state_patch({"step": 1, "done": False}, {"step": 2, "done": False})
        [{'op': 'replace', 'path': '/step', 'value': 2}]
    """
    old = {key: value for key, value in before.items() if key not in after or after[key] is not value}
    new = {key: value for key, value in after.items() if key not in before or before[key] is not value}
    operations: list[dict[str, object]] = jsonpatch.make_patch(old, new).patch
    return operations
