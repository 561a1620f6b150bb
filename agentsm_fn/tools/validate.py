"""Argument validation: a tool call's arguments against its JSON Schema (pure).

Invalid arguments are not an exception: :func:`argument_problems` returns the
problems as text, which Acting turns into a ``ToolFailure`` observation the LLM
can read and correct. Checked validators are memoized per (frozen) schema, and plain
schemas get a fast acceptance test first (:mod:`agentsm_fn.tools.fastcheck`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, TypeAlias, cast

import attrs
import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from pyrsistent import PMap

from agentsm_fn.llm.json import JsonObject, JsonValue, freeze_object, thaw
from agentsm_fn.tools.fastcheck import FastCheck, compile_fast

__all__ = ["ArgumentCheck", "CompiledSchema", "argument_problems", "compile_schema", "problems_with"]


@attrs.frozen
class CompiledSchema:
    """A checked validator, and the fast acceptance test when the schema is a plain one."""

    validator: Validator
    fast: FastCheck | None


ArgumentCheck: TypeAlias = CompiledSchema | str
"""A compiled schema, or why the schema itself is invalid."""


@functools.lru_cache(maxsize=512)
def compile_schema(schema: JsonObject) -> ArgumentCheck:
    """A checked validator for the frozen ``schema``, or the reason the schema itself is invalid.

    Memoized per schema; a :class:`~agentsm_fn.tools.spec.ToolDef` also keeps its own.

    Example:
        >>> compile_schema(freeze_object({"type": "nonsense"}))[:30]
        "the tool's schema is invalid: "
    """
    plain = cast(dict[str, Any], thaw(schema))  # a JSON object thaws to a dict
    validator_class = jsonschema.validators.validator_for(plain)
    try:
        validator_class.check_schema(plain)
    except SchemaError as exc:
        return f"the tool's schema is invalid: {exc.message}"
    return CompiledSchema(validator_class(plain), compile_fast(schema))


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
