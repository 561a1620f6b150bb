"""WaitingForHuman, Observing, Reflecting and Idle: every branch."""

from __future__ import annotations

import json

import attrs
from pyrsistent import pvector

from agentsm_fn.agents.react import (
    SUMMARY_TOOL,
    AgentConfig,
    Approved,
    AskHuman,
    Event,
    HistoryEntry,
    HumanApprovalRequest,
    Modified,
    ReactToolResult,
    Rejected,
)
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.observing import idle, observe
from agentsm_fn.agents.react.prompt import COMPRESSION_PROMPT
from agentsm_fn.agents.react.reflecting import receive_summary, reflect
from agentsm_fn.agents.react.waiting import ask_human, receive_decision
from agentsm_fn.core import Fault
from agentsm_fn.llm import LlmCall, LlmReply, Usage, UserMessage
from tests.agents.react.helpers import answer, call, emitted, llm_failure, make_memory, requested


def _awaiting(step: int = 1) -> AgentMemory:
    c = call("delete_file", "d1", path="/tmp/x")
    request = HumanApprovalRequest(step=step, tool_call=c, reason="needs approval")
    return make_memory(step=step, current_tool_call=c, pending_approval=request)


def _entry(step: int, name: str = "search") -> HistoryEntry:
    return HistoryEntry(step=step, tool=call(name, f"c{step}"), observation="SUCCESS: x", success=True)


# Idle


def test_idle_emits_start_and_changes_nothing() -> None:
    memory = make_memory()
    assert emitted(idle(memory)) == (Event.Start, memory)


# WaitingForHuman


def test_waiting_without_pending_approval_is_fatal() -> None:
    event, after = emitted(ask_human(make_memory()))
    assert event is Event.FatalError
    assert after.error is not None


def test_waiting_asks_the_human_about_the_pending_request() -> None:
    memory = _awaiting()
    out = requested(ask_human(memory))
    assert out.effect == AskHuman(memory.pending_approval)  # type: ignore[arg-type]  # set by _awaiting


def test_approved_goes_to_acting_with_the_same_call() -> None:
    memory = _awaiting()
    event, after = emitted(receive_decision(memory, Approved()))
    assert event is Event.HumanApproved
    assert after.current_tool_call == memory.current_tool_call
    assert after.pending_approval is not None and after.pending_approval.decision == Approved()
    assert after.last_observation is None


def test_rejected_records_the_decision_for_observing() -> None:
    event, after = emitted(receive_decision(_awaiting(), Rejected("too risky")))
    assert event is Event.HumanRejected
    assert after.pending_approval is not None and after.pending_approval.decision == Rejected("too risky")
    assert after.last_observation is None


def test_modified_replaces_only_the_arguments() -> None:
    memory = _awaiting()
    event, after = emitted(receive_decision(memory, Modified({"path": "/tmp/safe"})))
    assert event is Event.HumanModified
    assert after.current_tool_call is not None and memory.current_tool_call is not None
    assert after.current_tool_call.id == memory.current_tool_call.id
    assert after.current_tool_call.name == memory.current_tool_call.name
    assert dict(after.current_tool_call.arguments) == {"path": "/tmp/safe"}


# Observing


def test_observing_commits_single_call_and_clears_cycle_fields() -> None:
    memory = make_memory(step=1, current_tool_call=call(), last_observation="SUCCESS: Paris")
    event, after = emitted(observe(memory))
    assert event is Event.Continue
    assert list(after.history) == [
        HistoryEntry(step=1, tool=call(), observation="SUCCESS: Paris", success=True)
    ]
    assert after.current_tool_call is None and after.last_observation is None


def test_observing_marks_errors_unsuccessful() -> None:
    memory = make_memory(step=1, current_tool_call=call(), last_observation="ERROR: ValueError: bad")
    _, after = emitted(observe(memory))
    assert after.history[0].success is False


def test_observing_triggers_reflection_on_multiples_of_the_period() -> None:
    memory = make_memory(step=10, current_tool_call=call(), last_observation="SUCCESS: x")
    assert emitted(observe(memory))[0] is Event.NeedsReflection
    assert emitted(observe(attrs.evolve(memory, step=11)))[0] is Event.Continue


def test_observing_never_reflects_when_period_is_zero() -> None:
    config = AgentConfig(reflect_every_n_steps=0)
    memory = make_memory(step=5, config=config, current_tool_call=call(), last_observation="SUCCESS: x")
    assert emitted(observe(memory))[0] is Event.Continue


def test_observing_commits_parallel_results_in_call_order() -> None:
    calls = (call("search", "a"), call("calculator", "b", expression="1"))
    results = (
        ReactToolResult(call_id="a", name="search", ok=True, output="A"),
        ReactToolResult.failure("b", "calculator", "ZeroDivisionError", "division by zero"),
    )
    memory = make_memory(step=2, pending_tool_calls=calls, parallel_results=results)
    _, after = emitted(observe(memory))
    assert [(e.tool.id, e.observation, e.success) for e in after.history] == [
        ("a", "SUCCESS: A", True),
        ("b", "ERROR: ZeroDivisionError: division by zero", False),
    ]
    assert after.pending_tool_calls == () and after.parallel_results == ()


def test_observing_turns_a_rejection_into_an_observation() -> None:
    memory, _ = emitted(receive_decision(_awaiting(step=3), Rejected("not allowed")))[1], None
    event, after = emitted(observe(memory))
    assert event is Event.Continue
    entry = after.history[-1]
    assert entry.step == 3 and entry.tool.name == "delete_file" and entry.success is False
    assert entry.observation == "ERROR: HumanRejected: the user rejected this call: not allowed"
    assert after.pending_approval is None and after.current_tool_call is None


def test_observing_with_nothing_to_commit_is_a_fault() -> None:
    result = observe(make_memory(step=1))
    assert result.failure() == Fault("Observing entered with no tool call result to commit")


def test_observing_with_mismatched_parallel_fields_is_a_fault() -> None:
    results = (ReactToolResult(call_id="a", name="search", ok=True, output="A"),)
    result = observe(make_memory(step=1, parallel_results=results))
    assert "differ in length" in result.failure().message


# Reflecting


def test_reflecting_sends_the_exact_compression_prompt() -> None:
    memory = make_memory(step=5, history=[_entry(4)], config=AgentConfig(models={"default": "m"}))
    out = requested(reflect(memory))
    assert isinstance(out.effect, LlmCall)
    assert out.effect.purpose == "reflect"
    assert out.effect.request.model == "m"
    (message,) = out.effect.request.messages
    assert isinstance(message, UserMessage)
    history = json.dumps(
        [
            {
                "step": 4,
                "tool": {"name": "search", "args": {"query": "capital of France"}},
                "observation": "SUCCESS: x",
                "success": True,
            }
        ]
    )
    assert message.content == COMPRESSION_PROMPT.format(task="test task", history_json=history)
    assert message.content.startswith(
        "Summarize the following tool call history into a single concise paragraph\n"
    )


def test_reflecting_replaces_history_with_one_summary() -> None:
    memory = make_memory(step=5, retry_count=2, history=[_entry(3), _entry(4)])
    event, after = emitted(
        receive_summary(memory, answer("Paris, 2.1 million people.", Usage(output_tokens=7)))
    )
    assert event is Event.ReflectDone
    (summary,) = after.history
    assert summary.tool.name == SUMMARY_TOOL and summary.observation == "Paris, 2.1 million people."
    assert after.retry_count == 0
    assert after.total_usage == Usage(output_tokens=7)


def test_reflecting_keeps_history_when_the_call_fails() -> None:
    memory = make_memory(step=5, retry_count=2, history=[_entry(3), _entry(4)])
    event, after = emitted(receive_summary(memory, llm_failure()))
    assert event is Event.ReflectDone
    assert after.history == memory.history
    assert after.retry_count == 0


def test_reflecting_keeps_history_on_an_empty_or_tool_call_reply() -> None:
    memory = make_memory(step=5, history=[_entry(4)])
    assert emitted(receive_summary(memory, LlmReply(content="  ")))[1].history == memory.history
    tool_turn = LlmReply(tool_calls=(call(),), usage=Usage(input_tokens=3))
    _, after = emitted(receive_summary(memory, tool_turn))
    assert after.history == memory.history and after.total_usage == Usage(input_tokens=3)


def test_reflecting_empty_history_needs_no_call() -> None:
    event, after = emitted(reflect(make_memory(retry_count=3, history=pvector())))
    assert event is Event.ReflectDone
    assert after.retry_count == 0


def test_reflecting_makes_no_call_once_the_budget_is_spent() -> None:
    from agentsm_fn.agents.react import TokenBudget

    memory = make_memory(
        step=5,
        retry_count=1,
        history=[_entry(4)],
        budget=TokenBudget(total=10),
        total_usage=Usage(input_tokens=10),
    )
    event, after = emitted(reflect(memory))
    assert event is Event.ReflectDone
    assert after.history == memory.history and after.retry_count == 0
