"""Planning: every branch of 000 section 4.8 and 001's extensions."""

from __future__ import annotations

import attrs
from returns.result import Success

from agentsm_fn.agents.react import AgentConfig, Event, TokenBudget
from agentsm_fn.agents.react.memory import AgentMemory, HistoryEntry
from agentsm_fn.agents.react.planning import plan, receive_plan
from agentsm_fn.core import Perform
from agentsm_fn.llm import AssistantMessage, LlmCall, LlmOutcome, ToolResultMessage, Usage, UserMessage
from tests.agents.react.helpers import (
    answer,
    call,
    emitted,
    llm_failure,
    llm_request,
    make_memory,
    requested,
    tool_reply,
)


def _request(memory: AgentMemory) -> Perform[object, AgentMemory]:
    return requested(plan(memory))


def _model(memory: AgentMemory) -> str:
    return llm_request(plan(memory)).model


def _event(memory: AgentMemory, outcome: LlmOutcome) -> tuple[Event, AgentMemory]:
    return emitted(receive_plan(memory, outcome))


def test_max_steps_guard_fires_before_the_llm_call() -> None:
    memory = make_memory(step=15)
    event, after = emitted(plan(memory))
    assert event is Event.MaxSteps
    assert after.step == 15
    assert after.error is not None and "Max steps (15)" in after.error


def test_step_is_incremented_before_the_call() -> None:
    out = _request(make_memory(step=3))
    assert out.memory.step == 4
    assert isinstance(out.effect, LlmCall)
    assert out.effect.purpose == "plan"


def test_model_routing_exact_then_default_then_empty() -> None:
    config = AgentConfig(models={"default": "big", "calculation": "small"})
    assert _model(make_memory(config=config, task_type="calculation")) == "small"
    assert _model(make_memory(config=config, task_type="research")) == "big"
    assert _model(make_memory(task_type="research")) == ""


def test_request_carries_tools_except_blacklisted_and_real_tool_turns() -> None:
    entry = HistoryEntry(step=1, tool=call(), observation="SUCCESS: Paris", success=True)
    memory = make_memory(history=[entry]).blacklist_tool("delete_file")
    request = llm_request(plan(memory))
    assert [t.name for t in request.tools] == ["search", "calculator"]
    kinds = [type(m) for m in request.messages]
    assert kinds == [UserMessage, AssistantMessage, ToolResultMessage]
    assistant, result = request.messages[1], request.messages[2]
    assert isinstance(assistant, AssistantMessage) and isinstance(result, ToolResultMessage)
    assert assistant.tool_calls[0].name == "search"
    assert result.content == "SUCCESS: Paris"
    assert result.tool_call_id == assistant.tool_calls[0].id


def test_budget_exhausted_emits_budget_exceeded_without_a_call() -> None:
    memory = make_memory(budget=TokenBudget(total=10), total_usage=Usage(input_tokens=8, output_tokens=2))
    event, after = emitted(plan(memory))
    assert event is Event.BudgetExceeded
    assert after.step == 0
    assert after.error is not None and "total tokens" in after.error


def test_budget_with_room_allows_the_call() -> None:
    memory = make_memory(budget=TokenBudget(input=100), total_usage=Usage(input_tokens=99))
    assert isinstance(plan(memory).unwrap(), Perform)


def test_provider_failure_is_fatal_and_sets_error() -> None:
    event, after = _event(make_memory(step=1), llm_failure("connection refused"))
    assert event is Event.FatalError
    assert after.error is not None and "connection refused" in after.error


def test_low_confidence_with_retry_budget_increments_retry_count() -> None:
    event, after = _event(make_memory(step=1, retry_count=1), tool_reply(confidence=0.1))
    assert event is Event.LowConfidence
    assert after.retry_count == 2
    assert after.confidence_score == 0.1
    assert after.current_tool_call is None


def test_low_confidence_without_retry_budget_proceeds() -> None:
    event, after = _event(make_memory(step=1, retry_count=3), tool_reply(confidence=0.1))
    assert event is Event.LlmToolCall
    assert after.retry_count == 3


def test_blacklisted_tool_emits_tool_blacklisted_and_sets_no_error() -> None:
    memory = make_memory(step=1).blacklist_tool("search")
    event, after = _event(memory, tool_reply())
    assert event is Event.ToolBlacklisted
    assert after.error is None
    assert after.current_tool_call is None


def test_blacklisted_tools_asked_for_are_named_once_each_in_order() -> None:
    memory = make_memory(step=1).blacklist_tool("weather").blacklist_tool("delete_file")
    reply = tool_reply(
        call("delete_file", "c1"), call("search", "c2"), call("weather", "c3"), call("delete_file", "c4")
    )
    event, after = _event(memory, reply)
    assert event is Event.ToolBlacklisted
    assert after.refused_tools == ("delete_file", "weather")


def test_other_replies_refuse_nothing() -> None:
    memory = make_memory(step=1).blacklist_tool("weather")
    for reply in (tool_reply(call("search")), answer()):
        assert _event(memory, reply)[1].refused_tools == ()


def test_the_next_plan_step_clears_the_refused_tools() -> None:
    refused = make_memory(step=1, refused_tools=("weather",))
    assert _request(refused).memory.refused_tools == ()
    assert emitted(plan(attrs.evolve(refused, step=15)))[1].refused_tools == ()  # MaxSteps too


def test_valid_tool_call_sets_current_tool_call() -> None:
    event, after = _event(make_memory(step=1), tool_reply(call("calculator", expression="2+2")))
    assert event is Event.LlmToolCall
    assert after.current_tool_call == call("calculator", expression="2+2")


def test_usage_accumulates() -> None:
    memory = make_memory(step=1, total_usage=Usage(input_tokens=5))
    _, after = _event(memory, answer(usage=Usage(input_tokens=3, output_tokens=4)))
    assert after.total_usage == Usage(input_tokens=8, output_tokens=4)


def test_several_calls_with_parallel_tools_go_parallel() -> None:
    calls = (call("search", "a"), call("calculator", "b", expression="1+1"))
    event, after = _event(make_memory(step=1), tool_reply(*calls))
    assert event is Event.LlmParallelToolCalls
    assert after.pending_tool_calls == calls
    assert after.current_tool_call is None


def test_several_calls_without_parallel_tools_take_the_first() -> None:
    calls = (call("search", "a"), call("calculator", "b", expression="1+1"))
    event, after = _event(make_memory(step=1, config=AgentConfig(parallel_tools=False)), tool_reply(*calls))
    assert event is Event.LlmToolCall
    assert after.current_tool_call == calls[0]


def test_batch_with_an_approval_tool_is_handled_one_call_at_a_time() -> None:
    calls = (call("delete_file", "a"), call("search", "b"))
    event, after = _event(make_memory(step=1), tool_reply(*calls))
    assert event is Event.HumanApprovalRequired
    assert after.current_tool_call == calls[0]


def test_tool_needing_approval_requires_a_human() -> None:
    event, after = _event(make_memory(step=2), tool_reply(call("delete_file")))
    assert event is Event.HumanApprovalRequired
    assert after.pending_approval is not None
    assert after.pending_approval.step == 2
    assert after.pending_approval.tool_call == call("delete_file")
    assert after.current_tool_call == call("delete_file")


def test_approve_all_tools_policy() -> None:
    memory = make_memory(step=1, config=AgentConfig(approve_all_tools=True))
    event, _ = _event(memory, tool_reply())
    assert event is Event.HumanApprovalRequired


def test_short_answer_is_too_short() -> None:
    event, after = _event(make_memory(step=1), answer("Paris."))
    assert event is Event.AnswerTooShort
    assert after.final_answer is None


def test_answer_length_is_measured_without_surrounding_space() -> None:
    event, _ = _event(make_memory(step=1), answer("  Paris.            " + " " * 20))
    assert event is Event.AnswerTooShort


def test_long_enough_answer_is_final() -> None:
    event, after = _event(make_memory(step=1), answer())
    assert event is Event.LlmFinalAnswer
    assert after.final_answer == "Paris is the capital of France."


def test_zero_min_answer_length_accepts_empty_answer() -> None:
    event, after = _event(make_memory(step=1, config=AgentConfig(min_answer_length=0)), answer(""))
    assert event is Event.LlmFinalAnswer
    assert after.final_answer == ""


def test_plan_is_pure() -> None:
    memory = make_memory(step=1)
    assert plan(memory) == plan(memory)
    assert isinstance(plan(memory), Success)
    assert memory == make_memory(step=1)
    assert attrs.evolve(memory) == memory
