"""Reading replies never raises, whatever the model sends; normalizing is idempotent."""

from __future__ import annotations

import json

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn.agents.plan_execute import DEFAULT_PLAN_SCHEMA, Event, HaltCause
from agentsm_fn.agents.plan_execute.front import intake_enter, normalize_input, plan_receive
from agentsm_fn.agents.plan_execute.structured import (
    parse_decision,
    parse_json_object,
    parse_plan,
    schema_errors,
)
from agentsm_fn.llm import LlmReply
from agentsm_fn.llm.json import JsonObject

from .helpers import memory, moved

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
texts = st.text(max_size=200) | json_values.map(json.dumps)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_parse_plan_is_total_and_only_accepts_schema_valid_plans(text: str) -> None:
    result = parse_plan(text, DEFAULT_PLAN_SCHEMA, "fallback")
    if isinstance(result, Success):
        plan = result.unwrap()
        assert schema_errors(plan.raw, DEFAULT_PLAN_SCHEMA) == ()
        assert plan.goal
    else:
        assert isinstance(result, Failure) and result.failure()


@settings(max_examples=200, deadline=None)
@given(texts)
def test_parse_decision_is_total(text: str) -> None:
    result = parse_decision(text)
    if isinstance(result, Success):
        assert isinstance(result.unwrap().proceed, bool)


@given(st.dictionaries(st.sampled_from(["goal", "initial_steps", "x"]), json_values, max_size=3))
def test_json_objects_round_trip(value: dict[str, object]) -> None:
    assert parse_json_object(json.dumps(value)) == Success(value)


@settings(max_examples=100, deadline=None)
@given(texts)
def test_the_plan_handler_turns_any_reply_into_a_row(text: str) -> None:
    _, mem = moved(intake_enter(memory()))
    event, after = moved(plan_receive(mem, LlmReply(content=text)))
    assert event in {Event.VALID_PLAN, Event.INVALID_PLAN}
    if event is Event.INVALID_PLAN:
        assert after.error is not None and after.error.cause is HaltCause.INVALID_PLAN


@given(st.text())
def test_normalizing_is_idempotent(text: str) -> None:
    once = normalize_input(text)
    assert normalize_input(once) == once
    assert once == once.strip()


@given(st.sampled_from([1, 1.0, True, 0, 0.0, False]), st.sampled_from([1, True, 0, False]))
def test_schemas_differing_only_by_1_or_true_get_their_own_validators(allowed: float, value: int) -> None:
    # 1 == 1.0 == True in Python, so a cache keyed by the frozen schema mixed them up.
    for warm in (1, True, 0, False):  # fill the cache with equal-looking schemas first
        schema_errors({"x": value}, {"type": "object", "properties": {"x": {"enum": [warm]}}})
    schema: JsonObject = {"type": "object", "properties": {"x": {"enum": [allowed]}}}
    expected = not list(jsonschema.Draft202012Validator(dict(schema)).iter_errors({"x": value}))
    assert (schema_errors({"x": value}, schema) == ()) == expected
