"""JSON values, frozen: what tool arguments, schemas and wire payloads are made of.

``freeze`` turns parsed JSON (dicts and lists) into immutable, hashable values
(persistent maps and vectors); ``thaw`` turns them back into plain dicts and
lists for ``json.dumps`` or a JSON Schema validator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TypeAlias

from pyrsistent import PMap, PVector, pmap, pvector

__all__ = ["JsonObject", "JsonValue", "dumps", "freeze", "freeze_object", "thaw"]

JsonValue: TypeAlias = "bool | int | float | str | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
"""Any JSON value (read-only view: frozen values are sequences and mappings)."""

JsonObject: TypeAlias = Mapping[str, JsonValue]
"""A JSON object."""


def freeze(value: object) -> JsonValue:
    """Deep-freeze parsed JSON; raises ``TypeError`` for anything that is not JSON.

    Example:
        >>> frozen = freeze({"a": [1, {"b": None}]})
        >>> hash(frozen) == hash(freeze({"a": [1, {"b": None}]}))
        True
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        items: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, got {type(key).__name__}")
            items[key] = freeze(item)
        return pmap(items)
    if isinstance(value, list | tuple | PVector):
        return pvector(freeze(item) for item in value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def freeze_object(value: object) -> JsonObject:
    """Deep-freeze a JSON object; raises ``TypeError`` if ``value`` is not one.

    Example:
        >>> dict(freeze_object({"city": "Paris"}))
        {'city': 'Paris'}
    """
    frozen = freeze(value)
    if not isinstance(frozen, PMap):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return frozen


def thaw(value: JsonValue) -> object:
    """Plain dicts and lists again, for ``json.dumps`` and validators.

    Example:
        >>> thaw(freeze({"a": [1, 2]}))
        {'a': [1, 2]}
    """
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [thaw(item) for item in value]
    return value


def dumps(value: JsonValue) -> str:
    """Compact, key-sorted JSON text of a (frozen or plain) JSON value.

    Example:
        >>> dumps(freeze({"b": 1, "a": [True]}))
        '{"a":[true],"b":1}'
    """
    return json.dumps(thaw(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
