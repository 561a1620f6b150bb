"""Argument validation: a tool call's arguments against its JSON Schema (pure).

Invalid arguments are not an exception: :func:`argument_problems` returns the
problems as text, which Acting turns into a ``ToolFailure`` observation the LLM
can read and correct. Checked validators are memoized per schema (by its canonical JSON
text, so schemas that differ only by 1, 1.0 or true never share one), and plain
schemas get a fast acceptance test first (:mod:`agentsm_fn.tools.fastcheck`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any, TypeAlias, cast

import attrs
import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from pyrsistent import PMap

from agentsm_fn.llm.json import JsonObject, JsonValue, dumps, freeze_object, thaw
from agentsm_fn.tools.fastcheck import FastCheck, compile_fast

__all__ = [
    "ArgumentCheck",
    "CompiledSchema",
    "argument_problems",
    "compile_schema",
    "problems_with",
]


@attrs.frozen
class CompiledSchema:
    """A checked validator, and the fast acceptance test when the schema is a plain one."""

    validator: Validator
    fast: FastCheck | None


ArgumentCheck: TypeAlias = CompiledSchema | str
"""A compiled schema, or why the schema itself is invalid."""


# Validators are memoized by the schema's canonical JSON text (``dumps``: compact, key-sorted),
# never by the frozen map itself: maps compare their values with ``==``, and 1 == 1.0 == True
# in Python, so {"enum": [1]} and {"enum": [True]} would share one validator (and accept
# arguments jsonschema rejects). The text tells them apart ('1', '1.0', 'true'). In front of
# it, a memo by identity spares the same frozen schema its serialisation (it keeps each key
# alive, so ids are not reused).
_BY_ID: dict[int, tuple[JsonObject, ArgumentCheck]] = {}
_BY_ID_LIMIT = 512


@functools.lru_cache(maxsize=512)
def _compile(text: str) -> ArgumentCheck:
    plain = cast(dict[str, Any], json.loads(text))  # canonical JSON of an object
    validator_class = jsonschema.validators.validator_for(plain)
    try:
        validator_class.check_schema(plain)
    except SchemaError as exc:
        return f"the tool's schema is invalid: {exc.message}"
    return CompiledSchema(validator_class(plain), compile_fast(plain))


def compile_schema(schema: JsonObject) -> ArgumentCheck:
    """A checked validator for the frozen ``schema``, or the reason the schema itself is invalid.

    Memoized per schema, by its canonical JSON (schemas that differ only by 1, 1.0 or
    true get validators of their own); a :class:`~agentsm_fn.tools.spec.ToolDef` also
    keeps its own.

    Example:
        >>> compile_schema(freeze_object({"type": "nonsense"}))[:30]
        "the tool's schema is invalid: "
    """
    if not isinstance(schema, PMap):  # a mutable mapping may change: no memo by identity
        return _compile(dumps(schema))
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    check = _compile(dumps(schema))
    if len(_BY_ID) >= _BY_ID_LIMIT:
        _BY_ID.clear()
    _BY_ID[id(schema)] = (schema, check)
    return check


def argument_problems(schema: Mapping[str, object], arguments: Mapping[str, object]) -> str | None:
    """Every way ``arguments`` break ``schema``, in one line; None if they are valid.

    Example:
        >>> schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
        >>> argument_problems(schema, {"q": "Paris"}) is None
        True
        >>> argument_problems(schema, {})
        "'q' is a required property"
    """
    frozen = schema if isinstance(schema, PMap) else freeze_object(schema)
    return problems_with(compile_schema(cast(JsonObject, frozen)), arguments)


def problems_with(compiled: ArgumentCheck, arguments: Mapping[str, object]) -> str | None:
    """:func:`argument_problems` with a schema compiled by :func:`compile_schema`.

    Example:
        >>> check = compile_schema(freeze_object({"type": "object", "required": ["q"]}))
        >>> problems_with(check, {"q": 1}) is None, problems_with(check, {})
        (True, "'q' is a required property")
    """
    if isinstance(compiled, str):
        return compiled
    if compiled.fast is not None and compiled.fast(arguments):
        return None  # certainly valid (the fast test never rejects: jsonschema words the problems)
    plain_arguments = cast(dict[str, Any], thaw(cast(JsonValue, arguments)))
    errors = sorted(compiled.validator.iter_errors(plain_arguments), key=lambda e: [str(p) for p in e.path])
    if not errors:
        return None
    parts = []
    for error in errors:
        where = "/".join(str(p) for p in error.path)
        parts.append(f"{where}: {error.message}" if where else error.message)
    return "; ".join(parts)
