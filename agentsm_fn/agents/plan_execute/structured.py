"""Reading structured replies: JSON text, checked against a JSON Schema, into plans and decisions.

Pure: ``json`` and ``jsonschema`` only (no remote ``$ref`` is ever fetched). Every
function returns ``Success(value)`` or ``Failure(message)`` with a message that
says what was wrong and where.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import cast

import jsonschema
from jsonschema.protocols import Validator
from returns.result import Failure, Result, Success

from agentsm_fn.agents.plan_execute.config import DECISION_SCHEMA
from agentsm_fn.agents.plan_execute.step_values import plan_step_items
from agentsm_fn.agents.plan_execute.values import Plan, PlanDecision
from agentsm_fn.llm.json import JsonObject, JsonValue, dumps, freeze_object, thaw

__all__ = ["parse_decision", "parse_json_object", "parse_plan", "schema_errors"]

_MAX_ERRORS = 5


def _snippet(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def _unfence(text: str) -> str:
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        body = body[3:-3]
        first_line, _, rest = body.partition("\n")
        body = rest if first_line.strip().isalpha() or not first_line.strip() else body
    return body.strip()


def parse_json_object(text: str) -> Result[dict[str, JsonValue], str]:
    r"""Parse ``text`` (optionally inside one Markdown code fence) as a JSON object.

    Example:
        >>> parse_json_object('```json\n{"goal": "x"}\n```').unwrap()
        {'goal': 'x'}
        >>> print(parse_json_object("sure! here is the plan").failure())
        the reply is not valid JSON (Expecting value at line 1 column 1): 'sure! here is the plan'
    """
    body = _unfence(text)
    if not body:
        return Failure("the reply is empty; expected a JSON object")
    try:
        value: JsonValue = json.loads(body)
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        return Failure(f"the reply is not valid JSON ({where}): {_snippet(body)}")
    except (ValueError, RecursionError) as exc:
        return Failure(f"the reply is not valid JSON: {exc}")
    if not isinstance(value, dict):
        return Failure(f"the reply is JSON but not an object (got {type(value).__name__})")
    return Success(value)


def _path(parts: Sequence[object]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


@functools.lru_cache(maxsize=256)
def _validator(text: str) -> Validator | None:
    """A validator per schema, built once (building one costs more than using it).

    Keyed by the schema's canonical JSON text, never by the frozen map: maps compare
    values with ``==`` and 1 == 1.0 == True, so {"enum": [1]} and {"enum": [True]}
    would otherwise share one validator.
    """
    plain = json.loads(text)
    if not isinstance(plain, Mapping):
        return None
    return jsonschema.validators.validator_for(plain)(plain)


def schema_errors(instance: JsonValue, schema: JsonObject) -> tuple[str, ...]:
    """Every way ``instance`` breaks ``schema`` (at most five), each with its JSON path.

    Example:
        >>> schema_errors({"goal": 3}, {"type": "object", "properties": {"goal": {"type": "string"}}})
        ("at $.goal: 3 is not of type 'string'",)
    """
    try:
        validator = _validator(dumps(schema))
    except (TypeError, ValueError):
        validator = None
    if validator is None:
        return ("the schema is not a JSON object",)
    plain_instance = cast(JsonValue, thaw(instance))  # thaw maps JSON to plain JSON (dicts, lists)
    errors = sorted(validator.iter_errors(plain_instance), key=lambda e: (list(map(str, e.path)), e.message))
    return tuple(f"at {_path(list(e.path))}: {e.message}" for e in errors[:_MAX_ERRORS])


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(item for item in value if isinstance(item, str))
    return ()


def _steps(value: object) -> tuple[str, ...]:
    return tuple(text for text, _agent in plan_step_items(value))


def parse_plan(text: str, schema: JsonObject, fallback_goal: str) -> Result[Plan, str]:
    """The plan in a planner reply: valid JSON that satisfies the planner's schema.

    ``goal``, ``required_capabilities`` and ``initial_steps`` are read when present
    (a custom schema may name other fields; they stay in ``Plan.raw``). A step given to a
    step agent (``{"step": ..., "agent": ...}``) is its ``step`` text in ``initial_steps``.

    Example:
        >>> from agentsm_fn.agents.plan_execute.config import DEFAULT_PLAN_SCHEMA
        >>> plan = parse_plan('{"goal": "g", "initial_steps": ["a"]}', DEFAULT_PLAN_SCHEMA, "x")
        >>> plan.unwrap().initial_steps
        ('a',)
        >>> parse_plan('{"steps": []}', DEFAULT_PLAN_SCHEMA, "x").failure()
        "the plan does not satisfy the schema: at $: 'goal' is a required property; ..."
    """
    parsed = parse_json_object(text)
    if isinstance(parsed, Failure):
        return Failure(parsed.failure())
    value = parsed.unwrap()
    problems = schema_errors(value, schema)
    if problems:
        return Failure(f"the plan does not satisfy the schema: {'; '.join(problems)}")
    goal = value.get("goal")
    return Success(
        Plan(
            goal=goal if isinstance(goal, str) and goal.strip() else fallback_goal,
            required_capabilities=_strings(value.get("required_capabilities")),
            initial_steps=_steps(value.get("initial_steps")),
            raw=freeze_object(value),
        )
    )


def parse_decision(text: str) -> Result[PlanDecision, str]:
    """An LLM decision: ``{"continue": bool, "reason": str}`` and nothing else.

    Example:
        >>> parse_decision('{"continue": false, "reason": "nothing to do"}').unwrap().proceed
        False
    """
    parsed = parse_json_object(text)
    if isinstance(parsed, Failure):
        return Failure(parsed.failure())
    value = parsed.unwrap()
    problems = schema_errors(value, DECISION_SCHEMA)
    if problems:
        return Failure(f"the decision does not satisfy its schema: {'; '.join(problems)}")
    return Success(PlanDecision(proceed=bool(value["continue"]), reason=str(value["reason"]), by_llm=True))
