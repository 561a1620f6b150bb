"""The fast acceptance test agrees with jsonschema: it never accepts what jsonschema rejects."""

from __future__ import annotations

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.llm.json import JsonValue, freeze, freeze_object
from agentsm_fn.tools.fastcheck import compile_fast
from agentsm_fn.tools.spec import ToolDef
from agentsm_fn.tools.validate import argument_problems, compile_schema

TYPES = ["object", "array", "string", "boolean", "null", "integer", "number"]
NAMES = st.sampled_from(["a", "b", "key", "q"])

json_values: st.SearchStrategy[JsonValue] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 2.5, -1.5, float("nan"), float("inf")])
    | st.sampled_from(["", "a", "b", "x"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(NAMES, children, max_size=3),
    max_leaves=8,
)


def _type_spec() -> st.SearchStrategy[object]:
    return st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)


schemas: st.SearchStrategy[dict[str, object]] = st.recursive(
    st.fixed_dictionaries({}, optional={"type": _type_spec(), "description": st.just("d")}),
    lambda children: st.fixed_dictionaries(
        {},
        optional={
            "type": _type_spec(),
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "required": st.lists(NAMES, max_size=3, unique=True),
            "additionalProperties": st.booleans(),
            "items": children,
            "enum": st.lists(json_values, min_size=1, max_size=3),
            "format": st.just("email"),
            "title": st.just("t"),
        },
    ),
    max_leaves=6,
)


def _valid(schema: dict[str, object], value: JsonValue) -> bool:
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))


@settings(max_examples=400, deadline=None)
@given(schemas, json_values)
def test_the_fast_check_never_accepts_what_jsonschema_rejects(
    schema: dict[str, object], value: JsonValue
) -> None:
    check = compile_fast(freeze(schema))
    assert check is not None, "every schema of this grammar has a fast check"
    if check(freeze(value)):
        assert _valid(schema, value)


@settings(max_examples=300, deadline=None)
@given(schemas.filter(lambda s: "enum" not in str(s)), json_values)
def test_without_enum_the_fast_check_is_exactly_jsonschema(
    schema: dict[str, object], value: JsonValue
) -> None:
    check = compile_fast(freeze(schema))
    assert check is not None
    assert check(freeze(value)) == _valid(schema, value)


def test_string_enums_are_judged_fast_and_others_are_left_to_jsonschema() -> None:
    check = compile_fast(freeze({"enum": ["a", 1]}))
    assert check is not None
    assert check("a") and not check("b") and not check(1)  # 1 is valid, but jsonschema says so


def test_other_keywords_and_drafts_are_left_to_jsonschema() -> None:
    for schema in (
        {"type": "integer", "minimum": 0},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
        {"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
        {"additionalProperties": {"type": "string"}},
        {"items": [{"type": "string"}]},
        {"type": "object", "properties": {"a": True}},
    ):
        assert compile_fast(freeze(schema)) is None, schema


def test_messages_still_come_from_jsonschema() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    definition = ToolDef(name="f", description="", parameters=schema)
    assert definition.argument_problems(freeze_object({"q": "x"})) is None
    assert definition.argument_problems(freeze_object({"q": 3})) == "q: 3 is not of type 'string'"
    assert argument_problems(schema, {}) == "'q' is a required property"
    compiled = compile_schema(freeze_object(schema))
    assert not isinstance(compiled, str) and compiled.fast is not None
