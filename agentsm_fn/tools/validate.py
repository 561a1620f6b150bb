"""Argument validation: a tool call's arguments against its JSON Schema (pure).

Invalid arguments are not an exception: :func:`argument_problems` returns the
problems as text, which Acting turns into a ``ToolFailure`` observation the LLM
can read and correct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import jsonschema
from jsonschema.exceptions import SchemaError

from agentsm_fn.llm.json import JsonValue, thaw

__all__ = ["argument_problems"]


def argument_problems(schema: Mapping[str, object], arguments: Mapping[str, object]) -> str | None:
    """Every way ``arguments`` break ``schema``, in one line; None if they are valid.

    Example:
        >>> schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
        >>> argument_problems(schema, {"q": "Paris"}) is None
        True
        >>> argument_problems(schema, {})
        "'q' is a required property"
    """
    plain_schema = cast(dict[str, Any], thaw(cast(JsonValue, schema)))  # a JSON object thaws to a dict
    plain_arguments = cast(dict[str, Any], thaw(cast(JsonValue, arguments)))
    try:
        validator_class = jsonschema.validators.validator_for(plain_schema)
        validator_class.check_schema(plain_schema)
        validator = validator_class(plain_schema)
        errors = sorted(validator.iter_errors(plain_arguments), key=lambda e: [str(p) for p in e.path])
    except SchemaError as exc:
        return f"the tool's schema is invalid: {exc.message}"
    if not errors:
        return None
    parts = []
    for error in errors:
        where = "/".join(str(p) for p in error.path)
        parts.append(f"{where}: {error.message}" if where else error.message)
    return "; ".join(parts)
