"""A memory as AG-UI state: its public fields as JSON, and a change as a JSON Patch.

AG-UI state is any JSON value the frontend keeps; ours is an object of the memory's
*public* fields (attrs fields whose name does not start with ``_``), each converted to
JSON by msgspec (attrs classes to objects, enums to their values, tuples, frozensets
and persistent vectors to arrays, persistent maps to objects). Credentials in it are
redacted (:func:`~agentsm_fn.shell.credentials.redact_credentials`) before it leaves the
process. A change is sent as an RFC 6902 patch made by ``jsonpatch``, which the client
applies to the state it holds.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import jsonpatch
import msgspec
from pyrsistent import PMap, PSet, PVector

from agentsm_fn.llm.json import JsonObject, JsonValue
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["public_state", "state_patch"]


def _builtin(value: object) -> object:
    """Msgspec's hook for the persistent collections it does not know."""
    if isinstance(value, PVector | PSet):
        return list(value)
    if isinstance(value, PMap):
        return dict(value)
    raise NotImplementedError(f"{type(value).__name__} has no JSON form")


def public_state(memory: object) -> JsonObject:
    """The memory's public fields as a JSON object, credentials redacted.

    A memory that is not an attrs class is shown whole under ``"memory"``; a field with
    no JSON form is shown as its type's name (never its ``repr``, which may hold secrets).

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
    if attrs.has(kind):
        fields = {f.name: getattr(memory, f.name) for f in attrs.fields(kind) if f.name[:1] != "_"}
    else:
        fields = {"memory": memory}
    shown: dict[str, object] = {}
    for name, value in fields.items():
        try:
            shown[name] = msgspec.json.decode(msgspec.json.encode(value, enc_hook=_builtin))
        except (NotImplementedError, TypeError, ValueError, msgspec.EncodeError):
            shown[name] = f"<{type(value).__name__}>"
    text = redact_credentials(msgspec.json.encode(shown).decode())
    decoded: JsonObject = msgspec.json.decode(text)
    return decoded


def state_patch(before: Mapping[str, JsonValue], after: Mapping[str, JsonValue]) -> list[dict[str, object]]:
    """The RFC 6902 operations that turn ``before`` into ``after`` (empty when they are equal).

    Example:
        >>> state_patch({"step": 1, "done": False}, {"step": 2, "done": False})
        [{'op': 'replace', 'path': '/step', 'value': 2}]
    """
    operations: list[dict[str, object]] = jsonpatch.make_patch(dict(before), dict(after)).patch
    return operations
