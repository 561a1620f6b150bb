"""The deterministic evaluators grade the answer and the recorded run; custom checks and run properties."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from agentsm_fn.agents.react import RunTool, RunToolBatch
from agentsm_fn.core import Effect
from agentsm_fn.evals import (
    Evidence,
    Grade,
    answer_schema,
    at_most_seconds,
    at_most_tokens,
    check,
    contains,
    equals_expected,
    keeps,
    matches,
    never_reached,
    no_failure,
    reached,
    tool_called,
    tool_never_called,
)
from agentsm_fn.llm import JsonValue, ToolCall, Usage
from verification.kit import Letter, RunProperty, Transition, never, only_after, requested, responds, took


class S(enum.Enum):
    ASKING = 1
    ACTING = 2
    DONE = 3


class E(enum.Enum):
    CALL = 1
    ANSWER = 2
    REFUND = 3
    APPROVE = 4


Step = Transition[enum.Enum, object]


def step(index: int, event: E, target: S, *effects: Effect[object]) -> Step:
    return Step(
        index=index,
        source=S.ASKING,
        event=event,
        target=target,
        before=index - 1,
        after=index,
        effects=effects,
    )


def evidence(answer: JsonValue = "Paris", *steps: Step, **fields: Any) -> Evidence:
    ready: dict[str, Any] = {"case": "c", "run_id": "r", "status": "finished", "state": "DONE"}
    return Evidence(answer=answer, read_steps=lambda: steps, **(ready | fields))


def test_equals_expected_compares_text_and_json_and_skips_a_case_without_one() -> None:
    assert equals_expected().grade(evidence("Paris\n", expected="Paris")).passed is True
    assert equals_expected().grade(evidence({"a": [1]}, expected={"a": [1]})).passed is True
    wrong = equals_expected().grade(evidence("Lyon", expected="Paris"))
    assert (wrong.passed, wrong.reason) == (False, "expected Paris, got Lyon")
    skipped = equals_expected().grade(evidence("Lyon"))
    assert (skipped.passed, skipped.value) == (None, None)


def test_answer_checks_read_the_answer() -> None:
    assert contains("paris").grade(evidence("It is Paris.")).passed
    assert not contains("paris", case_sensitive=True).grade(evidence("It is Paris.")).passed
    assert matches(r"^\d+$").grade(evidence("42")).passed
    schema: JsonValue = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert answer_schema(schema).grade(evidence('{"n": 3}')).passed
    bad = answer_schema(schema).grade(evidence('{"n": "three"}'))
    assert (bad.passed, bad.reason) == (False, "n: 'three' is not of type 'integer'")
    assert "not JSON" in answer_schema(schema).grade(evidence("n is 3")).reason


def test_a_bad_schema_is_refused_where_the_check_is_made() -> None:
    with pytest.raises(Exception, match="is not valid"):
        answer_schema({"type": "no such type"})


def test_tool_checks_read_the_effects_the_run_asked_for() -> None:
    search = RunTool(ToolCall("c1", "search", {}))
    batch = RunToolBatch((RunTool(ToolCall("c2", "add", {})), RunTool(ToolCall("c3", "add", {}))))
    run = evidence("x", step(1, E.CALL, S.ACTING, search), step(2, E.CALL, S.ACTING, batch))
    assert tool_called("add").grade(run).passed
    assert not tool_called("delete").grade(run).passed
    assert tool_called("delete").grade(run).reason == "called: search, add, add"
    assert tool_never_called("delete").grade(run).passed
    assert tool_never_called("add").grade(run).reason == "called 2 time(s)"


def test_state_checks_read_the_rows_taken() -> None:
    run = evidence("x", step(1, E.CALL, S.ACTING), step(2, E.ANSWER, S.DONE))
    assert reached("ACTING").grade(run).passed
    assert never_reached("DONE").grade(run).reason == "entered at step 2"
    assert not reached("ERROR").grade(run).passed


def test_budget_checks_and_no_failure_read_the_record() -> None:
    run = evidence(usage=Usage(input_tokens=90, output_tokens=20), seconds=3.0)
    assert not at_most_tokens(100).grade(run).passed
    assert at_most_seconds(3.0).grade(run).passed
    assert no_failure().grade(run).passed
    failed = no_failure().grade(evidence(status="failed", failure="budget spent"))
    assert failed.reason == "failed: budget spent"


def test_a_custom_check_may_return_any_kind_of_result_and_a_raising_one_fails_its_case() -> None:
    assert check("len", lambda e: 0.25).grade(evidence()).score == 0.25
    assert check("tone", lambda e: "calm").grade(evidence()).label == "calm"
    assert check("ok", lambda e: (False, "no")).grade(evidence()).reason == "no"
    assert check("g", lambda e: Grade(evaluator="other", passed=True)).grade(evidence()).evaluator == "g"
    broken = check("broken", lambda e: 1 / 0).grade(evidence())
    assert (broken.passed, broken.reason) == (False, "raised ZeroDivisionError: division by zero")


def test_a_run_property_is_judged_by_the_kits_automaton_on_the_recorded_steps() -> None:
    approve_first: RunProperty[S, int] = only_after(
        took(E.REFUND), took(E.APPROVE), name="no refund before approval"
    )
    good = evidence("x", step(1, E.APPROVE, S.ACTING), step(2, E.REFUND, S.DONE))
    bad = evidence("x", step(1, E.REFUND, S.ACTING), step(2, E.APPROVE, S.DONE))
    assert keeps(approve_first).grade(good).passed
    broken = keeps(approve_first).grade(bad)
    assert broken.passed is False
    assert "REFUND with no APPROVE before it (step 1)" in broken.reason
    assert keeps(never(took(E.REFUND))).grade(bad).reason.endswith("REFUND happened (step 1)")


def test_a_response_property_is_checked_when_the_run_ended() -> None:
    calls: Letter[S, int] = requested(RunTool, name="a tool call")
    answered: RunProperty[S, int] = responds(calls, took(E.ANSWER))
    search = RunTool(ToolCall("c1", "search", {}))
    open_run = evidence("x", step(1, E.CALL, S.ACTING, search))
    assert "never followed by ANSWER" in keeps(answered).grade(open_run).reason
    waiting = evidence("x", step(1, E.CALL, S.ACTING, search), status="waiting")
    assert keeps(answered).grade(waiting).passed
