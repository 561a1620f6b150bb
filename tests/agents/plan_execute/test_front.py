"""INTAKE, PLAN and DECIDE: every branch, handler by handler."""

from __future__ import annotations

import json

import attrs
import pytest

from agentsm_fn.agents.plan_execute import (
    DecideMode,
    DeciderConfig,
    Event,
    FinalizerConfig,
    HaltCause,
    Plan,
    PlanExecuteConfig,
    PlanExecutePolicy,
    PlannerConfig,
    ReadClock,
    State,
)
from agentsm_fn.agents.plan_execute.front import (
    decide_enter,
    decide_receive,
    intake_enter,
    intake_receive,
    plan_enter,
    plan_receive,
)
from agentsm_fn.agents.plan_execute.memory import Awaiting
from agentsm_fn.llm import LlmCall, LlmFailureKind, LlmReply, SystemMessage, Usage, UserMessage, thaw

from .helpers import (
    READ_SPEC,
    SEARCH_SPEC,
    answer,
    decision_reply,
    failure,
    memory,
    moved,
    plan_reply,
    requested,
)

PLAN = Plan(goal="Find a PDF library", required_capabilities=("search",), initial_steps=("search", "read"))

# INTAKE


def test_intake_normalizes_input_and_starts_the_history() -> None:
    event, mem = moved(intake_enter(memory(input="  Find the\r\nbest PDF library\x07  ")))
    assert event is Event.NORMALIZED
    assert mem.normalized_input == "Find the\nbest PDF library"
    assert list(mem.messages) == [UserMessage("Find the\nbest PDF library")]
    assert mem.history[-1].as_dict() == {"from": 0, "to": 1, "reason": "Input normalized", "iteration": 0}
    assert mem.audit_log[-1].kind == "intake"


def test_intake_keeps_a_prior_conversation_and_appends_the_input() -> None:
    prior = memory(input="and now?", messages=memory().messages.append(SystemMessage("be brief")))
    _, mem = moved(intake_enter(prior))
    assert list(mem.messages) == [SystemMessage("be brief"), UserMessage("and now?")]


def test_intake_reads_the_clock_once_when_the_policy_has_a_time_limit() -> None:
    request = requested(intake_enter(memory(policy=PlanExecutePolicy(time_limit_seconds=30))))
    assert request.effect == ReadClock()
    assert request.memory.awaiting is Awaiting.CLOCK
    event, mem = moved(intake_receive(request.memory, 500.0))
    assert (event, mem.started_at) == (Event.NORMALIZED, 500.0)


def test_intake_does_not_read_the_clock_when_the_start_time_is_known() -> None:
    event, mem = moved(intake_enter(memory(policy=PlanExecutePolicy(time_limit_seconds=30), started_at=1.0)))
    assert (event, mem.started_at) == (Event.NORMALIZED, 1.0)


# PLAN


def test_plan_is_one_structured_call_with_the_planner_schema_and_prompt() -> None:
    _, mem = moved(intake_enter(memory()))
    request = requested(plan_enter(mem))
    assert isinstance(request.effect, LlmCall)
    assert request.effect.purpose == "plan"
    llm = request.effect.request
    assert llm.response_schema == mem.config.planner.schema
    assert llm.tools == ()
    prompt = llm.messages[0].content
    assert prompt.startswith("Create a plan for: Find the best PDF library for Ruby\nContext: {")
    context = json.loads(prompt.splitlines()[1].removeprefix("Context: "))
    assert context["available_tools"] == ["search", "read"]
    assert context["max_iterations"] == 20


def test_plan_uses_a_custom_template_model_and_schema() -> None:
    schema = {"type": "object", "required": ["steps"], "properties": {"steps": {"type": "array"}}}
    planner = PlannerConfig(schema=schema, prompt_template="PLAN<{input}>", model="planner-model")
    config = PlanExecuteConfig(planner=planner, model="default-model")
    _, mem = moved(intake_enter(memory(config=config, input="x")))
    llm = requested(plan_enter(mem)).effect
    assert isinstance(llm, LlmCall)
    assert llm.request.model == "planner-model"
    assert llm.request.messages[0].content == "PLAN<x>"
    assert llm.request.response_schema is not None
    assert thaw(llm.request.response_schema) == schema
    event, planned = moved(plan_receive(mem, LlmReply(content='{"steps": ["a"]}')))
    assert event is Event.VALID_PLAN
    assert planned.plan is not None and planned.plan.goal == "x"
    assert thaw(planned.plan.raw) == {"steps": ["a"]}


def test_valid_plan_goes_to_decide_and_is_stored() -> None:
    _, mem = moved(intake_enter(memory()))
    event, planned = moved(plan_receive(mem, plan_reply(usage=Usage(input_tokens=7, output_tokens=3))))
    assert event is Event.VALID_PLAN
    assert planned.plan is not None
    assert planned.plan.initial_steps == ("search for libraries", "read the best candidate")
    assert planned.plan.required_capabilities == ("search", "read")
    assert planned.usage.total_tokens == 10
    assert planned.history[-1].reason == "Plan created"
    assert planned.audit_log[-1].kind == "plan"


def test_plan_accepts_json_inside_a_code_fence() -> None:
    _, mem = moved(intake_enter(memory()))
    event, _ = moved(plan_receive(mem, answer('```json\n{"goal": "g", "initial_steps": ["a"]}\n```')))
    assert event is Event.VALID_PLAN


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("I will search and then read.", "not valid JSON"),
        ("", "empty"),
        ("[1, 2]", "not an object"),
        ('{"initial_steps": ["a"]}', "'goal' is a required property"),
        ('{"goal": "g", "initial_steps": "a"}', "at $.initial_steps"),
        ('{"goal": "g", "extra": 1}', "Additional properties"),
    ],
)
def test_invalid_plan_halts_with_a_clear_error(content: str, fragment: str) -> None:
    _, mem = moved(intake_enter(memory()))
    event, halted = moved(plan_receive(mem, answer(content)))
    assert event is Event.INVALID_PLAN
    assert halted.error is not None
    assert halted.error.cause is HaltCause.INVALID_PLAN
    assert halted.error.state is State.PLAN
    assert fragment in halted.error.message
    assert halted.plan is None
    assert halted.history[-1].target is State.HALT
    assert halted.audit_log[-1].kind == "halt"


def test_planner_provider_failure_halts_as_a_provider_failure() -> None:
    _, mem = moved(intake_enter(memory()))
    event, halted = moved(plan_receive(mem, failure(LlmFailureKind.HTTP_STATUS, "503")))
    assert event is Event.INVALID_PLAN
    assert halted.error is not None and halted.error.cause is HaltCause.PROVIDER_FAILURE
    assert halted.error.llm_failure is not None


def test_empty_input_halts_without_calling_the_planner() -> None:
    _, mem = moved(intake_enter(memory(input=" \n\t ")))
    event, halted = moved(plan_enter(mem))
    assert event is Event.INVALID_PLAN
    assert halted.error is not None and "empty" in halted.error.message


@pytest.mark.parametrize(
    ("policy", "reply", "rule"),
    [
        (PlanExecutePolicy(max_plan_steps=1), plan_reply(), "max_plan_steps"),
        (
            PlanExecutePolicy(require_known_capabilities=True),
            plan_reply(capabilities=("fly",)),
            "require_known_capabilities",
        ),
    ],
)
def test_policy_rejects_a_plan(policy: PlanExecutePolicy, reply: LlmReply, rule: str) -> None:
    _, mem = moved(intake_enter(memory(policy=policy)))
    event, halted = moved(plan_receive(mem, reply))
    assert event is Event.INVALID_PLAN
    assert halted.error is not None and halted.error.rule == rule


def test_known_capabilities_pass_when_required() -> None:
    _, mem = moved(intake_enter(memory(policy=PlanExecutePolicy(require_known_capabilities=True))))
    event, _ = moved(plan_receive(mem, plan_reply(capabilities=("search", "read"))))
    assert event is Event.VALID_PLAN


# DECIDE


def test_rules_continue_when_the_plan_has_steps() -> None:
    event, mem = moved(decide_enter(memory(plan=PLAN)))
    assert event is Event.CONTINUE
    assert mem.decision is not None and mem.decision.proceed and not mem.decision.by_llm
    assert mem.history[-1].reason == "Decided to continue: the plan has 2 steps"


def test_rules_stop_on_an_empty_plan_and_finalize() -> None:
    event, mem = moved(decide_enter(memory(plan=Plan(goal="nothing to do"))))
    assert event is Event.STOP
    assert mem.final_result is not None
    assert mem.final_result.content == "the plan has no steps"
    assert mem.final_result.stopped_by == "decide_stop"
    assert mem.history[-1].target is State.FINALIZE


def test_decide_without_a_plan_is_invalid() -> None:
    event, mem = moved(decide_enter(memory()))
    assert event is Event.INVALID
    assert mem.error is not None and mem.error.cause is HaltCause.INVALID_DECISION


def test_policy_rejects_continuing_with_a_forbidden_capability() -> None:
    event, mem = moved(decide_enter(memory(plan=PLAN, policy=PlanExecutePolicy(forbidden_tools={"search"}))))
    assert event is Event.INVALID
    assert mem.error is not None
    assert (mem.error.cause, mem.error.rule) == (HaltCause.POLICY_VIOLATION, "forbidden_tools")


def _llm_decider() -> PlanExecuteConfig:
    return PlanExecuteConfig(tools=(SEARCH_SPEC, READ_SPEC), decider=DeciderConfig(mode=DecideMode.LLM))


def test_llm_decider_asks_for_a_structured_decision() -> None:
    request = requested(decide_enter(memory(plan=PLAN, config=_llm_decider())))
    assert isinstance(request.effect, LlmCall)
    assert request.effect.purpose == "decide"
    schema = request.effect.request.response_schema
    assert schema is not None and thaw(schema["required"]) == ["continue", "reason"]
    assert '"initial_steps":["search","read"]' in request.effect.request.messages[0].content


@pytest.mark.parametrize(("proceed", "expected"), [(True, Event.CONTINUE), (False, Event.STOP)])
def test_llm_decider_continue_or_stop(proceed: bool, expected: Event) -> None:
    request = requested(decide_enter(memory(plan=PLAN, config=_llm_decider())))
    event, mem = moved(decide_receive(request.memory, decision_reply(proceed, "because")))
    assert event is expected
    assert mem.decision is not None and mem.decision.by_llm and mem.decision.reason == "because"


@pytest.mark.parametrize(
    "content",
    [
        "yes, continue",
        '{"continue": "yes", "reason": "r"}',
        '{"continue": true}',
        '{"continue": true, "reason": ""}',
    ],
)
def test_llm_decider_malformed_decision_is_invalid(content: str) -> None:
    request = requested(decide_enter(memory(plan=PLAN, config=_llm_decider())))
    event, mem = moved(decide_receive(request.memory, answer(content)))
    assert event is Event.INVALID
    assert mem.error is not None and mem.error.cause is HaltCause.INVALID_DECISION


def test_llm_decider_provider_failure_is_invalid() -> None:
    request = requested(decide_enter(memory(plan=PLAN, config=_llm_decider())))
    event, mem = moved(decide_receive(request.memory, failure()))
    assert event is Event.INVALID
    assert mem.error is not None and mem.error.cause is HaltCause.PROVIDER_FAILURE


def test_decide_stop_with_summary_calls_the_llm_without_tools_then_finalizes() -> None:
    config = PlanExecuteConfig(tools=(SEARCH_SPEC,), finalizer=FinalizerConfig(summarize=True))
    request = requested(decide_enter(memory(plan=Plan(goal="g"), config=config)))
    assert isinstance(request.effect, LlmCall)
    assert request.effect.purpose == "finalize" and request.effect.request.tools == ()
    event, mem = moved(decide_receive(request.memory, answer("Nothing needed doing.")))
    assert event is Event.STOP
    assert mem.final_result is not None and mem.final_result.answer == "Nothing needed doing."
    assert attrs.evolve(mem.final_result, summary=None).answer == "the plan has no steps"


def test_a_timed_out_planner_or_decider_call_halts_as_a_timeout() -> None:
    _, mem = moved(intake_enter(memory()))
    _, halted = moved(plan_receive(mem, failure(LlmFailureKind.TIMEOUT, "60s")))
    assert halted.error is not None and halted.error.cause is HaltCause.TIMEOUT
    request = requested(decide_enter(memory(plan=PLAN, config=_llm_decider())))
    _, halted = moved(decide_receive(request.memory, failure(LlmFailureKind.TIMEOUT, "60s")))
    assert halted.error is not None and halted.error.cause is HaltCause.TIMEOUT
