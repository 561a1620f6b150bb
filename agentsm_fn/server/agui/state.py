"""A memory as AG-UI state: its public fields as JSON, and a change as a JSON Patch.

AG-UI state is any JSON value the frontend keeps; ours is an object of the memory's
*public* fields (attrs fields whose name does not start with ``_``), each converted by the
server's :func:`~agentsm_fn.server.values.public_json` (the JSON the run API shows a memory
as: enums as values, vectors as lists, maps as objects, every string with credentials
redacted). A change is sent as an RFC 6902 patch made by ``jsonpatch``, which the client
applies to the state it holds.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import jsonpatch

from agentsm_fn.llm.json import JsonObject, JsonValue
from agentsm_fn.server.values import public_json

__all__ = ["public_state", "state_patch"]


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


def state_patch(before: Mapping[str, JsonValue], after: Mapping[str, JsonValue]) -> list[dict[str, object]]:
    """The RFC 6902 operations that turn ``before`` into ``after`` (empty when they are equal).

    Example:
        >>> state_patch({"step": 1, "done": False}, {"step": 2, "done": False})
        [{'op': 'replace', 'path': '/step', 'value': 2}]
    """
    operations: list[dict[str, object]] = jsonpatch.make_patch(dict(before), dict(after)).patch
    return operations
