"""Reading a reply as a result: JSON text to a value the schema accepts, or every problem with it (pure).

:func:`parse_reply` reads the text (a JSON object, alone or in one fenced code block, as
models often write it); :func:`schema_problems` lists every way the value breaks the
schema, each with its JSON path and jsonschema's words (which name the expected type).
Schemas are compiled once and memoized, with the fast acceptance test tools use
(:func:`agentsm_fn.tools.validate.compile_schema`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, cast

from returns.result import Failure, Result, Success

from agentsm_fn.agents.output.values import OutputProblem
from agentsm_fn.llm.json import JsonObject
from agentsm_fn.tools.validate import compile_schema

__all__ = ["json_path", "parse_reply", "schema_problems"]

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(.*)\n\s*```$", flags=re.DOTALL)


def json_path(parts: Iterable[object]) -> str:
    """A JSON path (``$.lines[0].qty``) from the keys and indexes leading to a value.

    Example:
        >>> json_path(["lines", 0, "qty"]), json_path([])
        ('$.lines[0].qty', '$')
    """
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def parse_reply(text: str) -> Result[dict[str, object], OutputProblem]:
    r"""The JSON object a reply holds, or why it holds none.

    Example:
        >>> parse_reply('```json\n{"a": 1}\n```').unwrap()
        {'a': 1}
        >>> print(parse_reply("The total is 12.").failure())
        $: not JSON (Expecting value at line 1 column 1)
        >>> print(parse_reply("[1]").failure())
        $: expected a JSON object, got an array
    """
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced is not None:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except ValueError as exc:
        where = (
            f"{exc.msg} at line {exc.lineno} column {exc.colno}"
            if isinstance(exc, json.JSONDecodeError)
            else exc
        )
        return Failure(OutputProblem(path="$", message=f"not JSON ({where})"))
    except RecursionError:
        return Failure(OutputProblem(path="$", message="not JSON (nested too deeply)"))
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")
        return Failure(
            OutputProblem(
                path="$", message=f"expected a JSON object, got {'null' if value is None else kind}"
            )
        )
    return Success(value)


def schema_problems(schema: JsonObject, value: dict[str, object]) -> tuple[OutputProblem, ...]:
    """Every way ``value`` breaks ``schema`` (empty when it is valid), in path order.

    Example:
        >>> from agentsm_fn.llm.json import freeze_object
        >>> schema = freeze_object({"type": "object", "properties": {"qty": {"type": "integer"}},
        ...                         "required": ["qty", "sku"]})
        >>> [str(p) for p in schema_problems(schema, {"qty": "1"})]
        ["$: 'sku' is a required property", "$.qty: '1' is not of type 'integer'"]
    """
    compiled = compile_schema(schema)
    if isinstance(compiled, str):
        return (OutputProblem(path="$", message=compiled),)
    if compiled.fast is not None and compiled.fast(value):
        return ()
    errors = compiled.validator.iter_errors(cast(dict[str, Any], value))
    found = [OutputProblem(path=json_path(error.absolute_path), message=error.message) for error in errors]
    return tuple(sorted(found, key=lambda problem: (problem.path, problem.message)))
