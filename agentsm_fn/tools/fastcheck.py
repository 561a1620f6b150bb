"""A fast acceptance test for the plain argument schemas most tools have; jsonschema decides the rest.

``jsonschema`` builds a validator object per keyword and per nested value, which
makes checking ``{"key": "a"}`` cost more than the rest of an agent's step. Most
tool schemas use a handful of keywords (``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``enum`` of strings, and annotations), whose
meaning is the same in every JSON Schema draft since 6. For those,
:func:`compile_fast` makes a plain predicate over the *frozen* arguments (no thaw).

The predicate only ever answers "certainly valid" (True) or "not sure" (False):
a False sends the call to jsonschema, which writes the problems. So the result of
validation (and every message) is jsonschema's; only the cost of the common valid
case changes. Any other keyword, a ``$schema``, a ``$ref`` or a boolean schema makes
:func:`compile_fast` return None (always ask jsonschema).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias, cast

__all__ = ["FastCheck", "compile_fast"]

FastCheck: TypeAlias = Callable[[object], bool]
"""True when the value certainly satisfies the schema; False when jsonschema must decide."""

_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "format", "$comment"})
_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum"})
_ALLOWED = _ANNOTATIONS | _KEYWORDS


def _is_object(value: object) -> bool:
    return type(value) is dict or isinstance(value, Mapping)  # a plain dict without the ABC's check


def _is_array(value: object) -> bool:
    return type(value) is list or (isinstance(value, Sequence) and not isinstance(value, str))


def _is_string(value: object) -> bool:
    return isinstance(value, str)


def _is_boolean(value: object) -> bool:
    return isinstance(value, bool)


def _is_null(value: object) -> bool:
    return value is None


def _is_integer(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# jsonschema's type checker for drafts 6 to 2020-12 (an integer-valued float is an integer),
# over frozen JSON: objects are mappings (PMap), arrays sequences (PVector).
_TYPES: dict[str, Callable[[object], bool]] = {
    "object": _is_object,
    "array": _is_array,
    "string": _is_string,
    "boolean": _is_boolean,
    "null": _is_null,
    "integer": _is_integer,
    "number": _is_number,
}


def _type_check(spec: object) -> FastCheck | None:
    names: tuple[object, ...] = ()
    if isinstance(spec, str):
        names = (spec,)
    elif _is_array(spec):
        names = tuple(cast(Sequence[object], spec))
    if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
        return None
    tests = tuple(_TYPES[str(n)] for n in names)
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _enum_check(spec: object) -> FastCheck | None:
    # Only strings are judged here (jsonschema compares a string with == and never equals a
    # string to a non-string); a non-string value goes to jsonschema.
    if not _is_array(spec):
        return None
    strings = frozenset(item for item in cast(Sequence[object], spec) if isinstance(item, str))
    return lambda value: isinstance(value, str) and value in strings


def _object_check(schema: Mapping[str, object]) -> FastCheck | None:
    properties = schema.get("properties", {})
    required = schema.get("required", ())
    closed = schema.get("additionalProperties", True)
    if not isinstance(properties, Mapping) or not _is_array(required) or not isinstance(closed, bool):
        return None
    children: dict[str, FastCheck] = {}
    for name, subschema in properties.items():
        child = compile_fast(subschema)
        if not isinstance(name, str) or child is None:
            return None
        children[name] = child
    names = tuple(str(n) for n in cast(Sequence[object], required))
    known = frozenset(children)

    def check(value: object) -> bool:
        if not isinstance(value, Mapping):
            return True  # object keywords do not apply to other types
        for name in names:
            if name not in value:
                return False
        if not closed and not known.issuperset(value):
            return False
        for name, item in value.items():
            child = children.get(name)
            if child is not None and not child(item):
                return False
        return True

    return check


def _items_check(spec: object) -> FastCheck | None:
    child = compile_fast(spec) if isinstance(spec, Mapping) else None
    if child is None:
        return None
    return lambda value: not _is_array(value) or all(child(item) for item in cast(Sequence[object], value))


def compile_fast(schema: object) -> FastCheck | None:
    """The fast predicate for ``schema``, or None when only jsonschema may judge it.

    Example:
        >>> check = compile_fast({"type": "object", "properties": {"q": {"type": "string"}},
        ...                       "required": ["q"]})
        >>> check({"q": "Paris"}), check({"q": 3}), check({})
        (True, False, False)
        >>> compile_fast({"type": "object", "properties": {"n": {"minimum": 0}}}) is None
        True
    """
    if not isinstance(schema, Mapping) or not all(k in _ALLOWED for k in schema):
        return None
    checks: list[FastCheck] = []
    for keyword, build in (("type", _type_check), ("enum", _enum_check), ("items", _items_check)):
        if keyword in schema:
            check = build(schema[keyword])
            if check is None:
                return None
            checks.append(check)
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        object_check = _object_check(schema)
        if object_check is None:
            return None
        checks.append(object_check)
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)
