"""Schemas that differ only by 1, 1.0 or true never share a validator (1 == 1.0 == True in Python)."""

from __future__ import annotations

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm.json import freeze_object
from agentsm_fn.tools.spec import ToolDef
from agentsm_fn.tools.validate import argument_problems, compile_schema

# Values Python's == confuses and JSON does not: 1 == 1.0 == True, 0 == 0.0 == False.
alike = st.sampled_from([1, 1.0, True, 0, 0.0, False])
keyword = st.sampled_from(["enum", "const"])


def _schema(word: str, value: object) -> dict[str, object]:
    inner = [value] if word == "enum" else value
    return {"type": "object", "properties": {"x": {word: inner}}, "required": ["x"]}


def _jsonschema_accepts(schema: dict[str, object], arguments: dict[str, object]) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(arguments)


@given(keyword, st.lists(alike, min_size=1, max_size=6), alike)
def test_validation_agrees_with_jsonschema_whatever_was_compiled_before(
    word: str, earlier: list[object], value: object
) -> None:
    for seen in earlier:  # warm the memo with schemas equal (by ==) to the one checked below
        ToolDef(name="t", description="", parameters=_schema(word, seen)).argument_problems({"x": seen})
        argument_problems(_schema(word, seen), {"x": seen})
    for allowed in (1, True, 1.0, 0, False, 0.0):
        schema = _schema(word, allowed)
        expected = _jsonschema_accepts(schema, {"x": value})
        definition = ToolDef(name="t", description="", parameters=schema)
        assert (definition.argument_problems({"x": value}) is None) == expected, (schema, value)
        assert (argument_problems(schema, {"x": value}) is None) == expected, (schema, value)


def test_one_and_true_get_validators_of_their_own() -> None:
    one = compile_schema(freeze_object(_schema("enum", 1)))
    true = compile_schema(freeze_object(_schema("enum", True)))
    assert one is not true
    assert compile_schema(freeze_object(_schema("enum", 1))) is one  # still memoized
    flag = ToolDef(name="b", description="", parameters=_schema("enum", True))
    assert flag.argument_problems({"x": 1}) == "x: 1 is not one of [True]"
    assert flag.argument_problems({"x": True}) is None
