"""EXECUTE, OBSERVE and LOOP_CHECK: every branch, handler by handler.

One idea over 300 lines: the tests of one module, ``agents/plan_execute/loop.py``, which they mirror.
"""

from __future__ import annotations

import attrs
import pytest
from pyrsistent import pvector

from agentsm_fn.agents.plan_execute import (
    Event,
    ExecutorConfig,
    FinalizerConfig,
    FinalResult,
    HaltCause,
    Plan,
    PlanExecuteConfig,
    PlanExecutePolicy,
    PlanExecuteToolResult,
    ReadClock,
    RunTools,
    State,
    ToolBatch,
)
from agentsm_fn.agents.plan_execute.loop import (
    execute_enter,
    execute_receive,
    loop_check_enter,
    loop_check_receive,
    observe_enter,
    observe_receive,
)
from agentsm_fn.agents.plan_execute.memory import Awaiting, PlanExecuteMemory
from agentsm_fn.llm import (
    AssistantMessage,
    LlmCall,
    LlmFailureKind,
    LlmReply,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

from .helpers import READ_SPEC, SEARCH_SPEC, answer, call, failure, memory, moved, requested, tool_reply

PLAN = Plan(goal="Find a PDF library", initial_steps=("search", "read"))


def executing(**changes: object) -> PlanExecuteMemory:
    """A memory that has passed INTAKE, PLAN and DECIDE."""
    base = memory(plan=PLAN, normalized_input="Find a PDF library", **changes)
    return attrs.evolve(base, messages=base.messages.append(UserMessage("Find a PDF library")))


def asked(mem: PlanExecuteMemory) -> PlanExecuteMemory:
    """The memory EXECUTE waits with for the chat reply."""
    return requested(execute_enter(mem)).memory


# EXECUTE


def test_execute_makes_one_chat_call_with_system_prompt_history_and_tools() -> None:
    request = requested(execute_enter(executing()))
    assert isinstance(request.effect, LlmCall)
    assert request.effect.purpose == "execute"
    llm = request.effect.request
    assert isinstance(llm.messages[0], SystemMessage)
    assert "1. search\n2. read" in llm.messages[0].content
    assert "Find a PDF library" in llm.messages[0].content
    assert llm.messages[1:] == (UserMessage("Find a PDF library"),)
    assert [t.name for t in llm.tools] == ["search", "read"]
    assert llm.response_schema is None
    assert request.memory.iteration == 1
    assert request.memory.awaiting is Awaiting.CHAT


def test_execute_uses_the_executor_settings() -> None:
    executor = ExecutorConfig(system_prompt="Do {goal}!", model="exec", temperature=0.2, max_tokens=99)
    config = PlanExecuteConfig(executor=executor, tools=(SEARCH_SPEC,))
    llm = requested(execute_enter(executing(config=config))).effect
    assert isinstance(llm, LlmCall)
    assert (llm.request.model, llm.request.temperature, llm.request.max_tokens) == ("exec", 0.2, 99)
    assert llm.request.messages[0] == SystemMessage("Do Find a PDF library!")


def test_execute_never_offers_forbidden_or_unlisted_tools() -> None:
    only_read = executing(policy=PlanExecutePolicy(forbidden_tools={"search"}))
    llm = requested(execute_enter(only_read)).effect
    assert isinstance(llm, LlmCall) and [t.name for t in llm.request.tools] == ["read"]
    allow = executing(policy=PlanExecutePolicy(allowed_tools={"search"}))
    llm = requested(execute_enter(allow)).effect
    assert isinstance(llm, LlmCall) and [t.name for t in llm.request.tools] == ["search"]


def test_tool_calls_present_go_to_observe_with_a_real_tool_call_turn() -> None:
    waiting = asked(executing())
    reply = tool_reply(call("search", "c1"), call("read", "c2"), usage=Usage(input_tokens=5, output_tokens=2))
    event, mem = moved(execute_receive(waiting, reply))
    assert event is Event.TOOL_CALLS_PRESENT
    assert [c.name for c in mem.pending_tool_calls] == ["search", "read"]
    assert mem.messages[-1] == AssistantMessage(content="", tool_calls=reply.tool_calls)
    assert mem.usage.total_tokens == 7
    assert mem.history[-1].reason == "Tool calls requested: search, read"
    assert mem.history[-1].iteration == 1


def test_missing_or_duplicate_call_ids_are_made_unique() -> None:
    waiting = asked(executing())
    _, mem = moved(execute_receive(waiting, tool_reply(call("search", ""), call("read", ""))))
    ids = [c.id for c in mem.pending_tool_calls]
    assert len(set(ids)) == 2 and all(ids)
    assistant = mem.messages[-1]
    assert isinstance(assistant, AssistantMessage) and [c.id for c in assistant.tool_calls] == ids


def test_no_tool_calls_finalize_with_the_answer() -> None:
    event, mem = moved(execute_receive(asked(executing()), answer("Use Prawn.")))
    assert event is Event.NO_TOOL_CALLS
    assert mem.final_result == FinalResult(content="Use Prawn.", iterations=1, stopped_by="no_tool_calls")
    assert mem.messages[-1] == AssistantMessage(content="Use Prawn.")
    assert mem.history[-1].target is State.FINALIZE


@pytest.mark.parametrize(
    ("kind", "cause"),
    [(LlmFailureKind.CONNECTION, HaltCause.PROVIDER_FAILURE), (LlmFailureKind.TIMEOUT, HaltCause.TIMEOUT)],
)
def test_provider_failure_halts(kind: LlmFailureKind, cause: HaltCause) -> None:
    event, mem = moved(execute_receive(asked(executing()), failure(kind)))
    assert event is Event.ERROR
    assert mem.error is not None and mem.error.cause is cause and mem.error.state is State.EXECUTE
    assert "no retries" in mem.error.message


def test_an_empty_reply_halts() -> None:
    event, mem = moved(execute_receive(asked(executing()), answer("   ")))
    assert event is Event.ERROR
    assert mem.error is not None and "neither tool calls nor an answer" in mem.error.message


def test_execute_enforces_max_iterations_before_calling_the_model() -> None:
    event, mem = moved(execute_enter(executing(max_iterations=2, iteration=2)))
    assert event is Event.ERROR
    assert mem.error is not None and mem.error.cause is HaltCause.MAX_ITERATIONS
    assert mem.iteration == 2


def test_final_answer_with_summary_makes_one_call_without_tools() -> None:
    config = PlanExecuteConfig(tools=(SEARCH_SPEC,), finalizer=FinalizerConfig(summarize=True, model="sum"))
    request = requested(execute_receive(asked(executing(config=config)), answer("Use Prawn.")))
    assert isinstance(request.effect, LlmCall)
    assert request.effect.purpose == "finalize"
    assert request.effect.request.tools == () and request.effect.request.model == "sum"
    assert request.effect.request.messages[-2] == AssistantMessage(content="Use Prawn.")
    event, mem = moved(
        execute_receive(request.memory, LlmReply(content="Prawn.", usage=Usage(output_tokens=4)))
    )
    assert event is Event.NO_TOOL_CALLS
    assert mem.final_result is not None
    assert (mem.final_result.content, mem.final_result.summary) == ("Use Prawn.", "Prawn.")
    assert mem.usage.output_tokens == 4


def test_a_failed_summary_keeps_the_answer_and_is_not_retried() -> None:
    config = PlanExecuteConfig(tools=(SEARCH_SPEC,), finalizer=FinalizerConfig(summarize=True))
    request = requested(execute_receive(asked(executing(config=config)), answer("Use Prawn.")))
    event, mem = moved(execute_receive(request.memory, failure()))
    assert event is Event.NO_TOOL_CALLS
    assert mem.final_result is not None and mem.final_result.answer == "Use Prawn."
    assert "summary failed" in mem.audit_log[-1].message


# OBSERVE


def observing(*calls: ToolCall, **changes: object) -> PlanExecuteMemory:
    mem = asked(executing(**changes))
    return moved(execute_receive(mem, tool_reply(*calls)))[1]


def test_observe_asks_the_shell_to_run_the_pending_calls() -> None:
    mem = observing(call("search", "c1"), call("read", "c2"))
    request = requested(observe_enter(mem))
    assert request.effect == RunTools(mem.pending_tool_calls)
    assert request.memory.awaiting is Awaiting.TOOLS


def test_observe_stores_results_and_appends_tool_messages_then_goes_to_loop_check() -> None:
    mem = observing(call("search", "c1"), call("read", "c2"))
    batch = ToolBatch(
        (
            PlanExecuteToolResult(call_id="c1", name="search", content="3 hits"),
            PlanExecuteToolResult(call_id="c2", name="read", content="page"),
        )
    )
    event, seen = moved(observe_receive(mem, batch))
    assert event is Event.OBSERVED
    assert [(o.tool, o.content, o.iteration) for o in seen.observations] == [
        ("search", "3 hits", 1),
        ("read", "page", 1),
    ]
    assert list(seen.messages[-2:]) == [
        ToolResultMessage("c1", "search", "3 hits"),
        ToolResultMessage("c2", "read", "page"),
    ]
    assert seen.pending_tool_calls == ()
    assert seen.tool_calls_made == 2
    assert seen.violation is None
    assert seen.history[-1].target is State.LOOP_CHECK


def test_observe_matches_results_by_call_id_and_flags_missing_ones() -> None:
    mem = observing(call("search", "c1"), call("read", "c2"))
    event, seen = moved(
        observe_receive(mem, ToolBatch((PlanExecuteToolResult(call_id="c2", name="read", content="p"),)))
    )
    assert event is Event.OBSERVED
    assert [(o.call_id, o.is_error) for o in seen.observations] == [("c1", True), ("c2", False)]
    assert seen.violation is not None and seen.violation.cause is HaltCause.TOOL_FAILURE


def test_a_tool_failure_is_recorded_for_loop_check() -> None:
    mem = observing(call("search", "c1"))
    batch = ToolBatch(
        (PlanExecuteToolResult(call_id="c1", name="search", content="search raised OSError", is_error=True),)
    )
    event, seen = moved(observe_receive(mem, batch))
    assert event is Event.OBSERVED
    assert seen.violation is not None
    assert (seen.violation.cause, seen.violation.rule) == (HaltCause.TOOL_FAILURE, "halt_on_tool_error")
    assert seen.messages[-1] == ToolResultMessage("c1", "search", "search raised OSError", is_error=True)


def test_a_tool_failure_goes_back_to_the_model_when_the_policy_says_so() -> None:
    mem = observing(call("search", "c1"), policy=PlanExecutePolicy(halt_on_tool_error=False))
    batch = ToolBatch((PlanExecuteToolResult(call_id="c1", name="search", content="boom", is_error=True),))
    _, seen = moved(observe_receive(mem, batch))
    assert seen.violation is None
    event, _ = moved(loop_check_enter(seen))
    assert event is Event.CONTINUE


@pytest.mark.parametrize(
    ("policy", "rule"),
    [
        (PlanExecutePolicy(forbidden_tools={"read"}), "forbidden_tools"),
        (PlanExecutePolicy(allowed_tools={"search"}), "allowed_tools"),
        (PlanExecutePolicy(max_tool_calls_per_turn=1), "max_tool_calls_per_turn"),
        (PlanExecutePolicy(max_tool_calls=1), "max_tool_calls"),
    ],
)
def test_observe_blocks_calls_the_policy_forbids_without_running_any(
    policy: PlanExecutePolicy, rule: str
) -> None:
    mem = observing(call("search", "c1"), call("read", "c2"), policy=policy)
    event, seen = moved(observe_enter(mem))  # a transition, not a RunTools request: nothing runs
    assert event is Event.OBSERVED
    assert seen.violation is not None and seen.violation.rule == rule
    assert all(o.is_error and o.content.startswith("blocked by policy") for o in seen.observations)
    assert seen.tool_calls_made == 0
    event, halted = moved(loop_check_enter(seen))
    assert event is Event.VIOLATION
    assert halted.error is not None and halted.error.cause is HaltCause.POLICY_VIOLATION


def test_max_tool_calls_counts_the_whole_run() -> None:
    mem = observing(call("search", "c1"), policy=PlanExecutePolicy(max_tool_calls=3), tool_calls_made=2)
    assert isinstance(requested(observe_enter(mem)).effect, RunTools)
    mem = observing(call("search", "c1"), policy=PlanExecutePolicy(max_tool_calls=3), tool_calls_made=3)
    _, seen = moved(observe_enter(mem))
    assert seen.violation is not None and seen.violation.rule == "max_tool_calls"


# LOOP_CHECK


def checked(**changes: object) -> PlanExecuteMemory:
    """A memory that has observed one round of tool results."""
    mem = observing(call("search", "c1"), **changes)
    batch = ToolBatch((PlanExecuteToolResult(call_id="c1", name="search", content="3 hits"),))
    return moved(observe_receive(mem, batch))[1]


def test_loop_check_continues_to_execute() -> None:
    event, mem = moved(loop_check_enter(checked()))
    assert event is Event.CONTINUE
    assert mem.history[-1].target is State.EXECUTE
    assert mem.history[-1].reason == "Continue (19 iterations left)"


def test_loop_check_stops_when_a_finish_tool_answered() -> None:
    spec = attrs.evolve(SEARCH_SPEC, name="final_answer")
    config = PlanExecuteConfig(tools=(SEARCH_SPEC, READ_SPEC, spec), finish_tools={"final_answer"})
    mem = observing(call("final_answer", "c9", text="Prawn"), config=config)
    batch = ToolBatch((PlanExecuteToolResult(call_id="c9", name="final_answer", content="Prawn"),))
    _, seen = moved(observe_receive(mem, batch))
    event, done = moved(loop_check_enter(seen))
    assert event is Event.STOP
    assert done.final_result is not None
    assert (done.final_result.content, done.final_result.stopped_by) == ("Prawn", "finish_tool:final_answer")


def test_a_finish_tool_from_an_earlier_iteration_does_not_stop() -> None:
    spec = attrs.evolve(SEARCH_SPEC, name="final_answer")
    config = PlanExecuteConfig(tools=(SEARCH_SPEC, spec), finish_tools={"final_answer"})
    mem = checked(config=config)
    old = attrs.evolve(mem.observations[-1], tool="final_answer", iteration=0)
    mem = attrs.evolve(mem, observations=pvector([old, *mem.observations]))
    event, _ = moved(loop_check_enter(mem))
    assert event is Event.CONTINUE


def test_loop_check_halts_when_max_iterations_are_used() -> None:
    event, mem = moved(loop_check_enter(checked(max_iterations=1)))
    assert event is Event.VIOLATION
    assert mem.error is not None
    assert (mem.error.cause, mem.error.state) == (HaltCause.MAX_ITERATIONS, State.LOOP_CHECK)


def test_loop_check_halts_on_a_tool_failure() -> None:
    mem = observing(call("search", "c1"))
    batch = ToolBatch((PlanExecuteToolResult(call_id="c1", name="search", content="boom", is_error=True),))
    _, seen = moved(observe_receive(mem, batch))
    event, halted = moved(loop_check_enter(seen))
    assert event is Event.VIOLATION
    assert halted.error is not None and halted.error.cause is HaltCause.TOOL_FAILURE
    assert "boom" in halted.error.message


def test_loop_check_halts_over_the_token_budget() -> None:
    mem = attrs.evolve(checked(policy=PlanExecutePolicy(max_total_tokens=100)), usage=Usage(input_tokens=101))
    event, halted = moved(loop_check_enter(mem))
    assert event is Event.VIOLATION
    assert halted.error is not None and halted.error.rule == "max_total_tokens"


def test_loop_check_reads_the_clock_and_halts_after_the_time_limit() -> None:
    mem = checked(policy=PlanExecutePolicy(time_limit_seconds=60), started_at=1000.0)
    request = requested(loop_check_enter(mem))
    assert request.effect == ReadClock()
    event, _ = moved(loop_check_receive(request.memory, 1059.0))
    assert event is Event.CONTINUE
    event, halted = moved(loop_check_receive(request.memory, 1061.0))
    assert event is Event.VIOLATION
    assert halted.error is not None and halted.error.cause is HaltCause.TIMEOUT


def test_loop_check_finish_with_summary_goes_through_one_llm_call() -> None:
    spec = attrs.evolve(SEARCH_SPEC, name="final_answer")
    config = PlanExecuteConfig(
        tools=(spec,), finish_tools={"final_answer"}, finalizer=FinalizerConfig(summarize=True)
    )
    mem = observing(call("final_answer", "c9", text="Prawn"), config=config)
    batch = ToolBatch((PlanExecuteToolResult(call_id="c9", name="final_answer", content="Prawn"),))
    _, seen = moved(observe_receive(mem, batch))
    request = requested(loop_check_enter(seen))
    assert isinstance(request.effect, LlmCall) and request.effect.purpose == "finalize"
    event, done = moved(loop_check_receive(request.memory, answer("Prawn it is.")))
    assert event is Event.STOP
    assert done.final_result is not None and done.final_result.answer == "Prawn it is."


def test_loop_check_rejects_an_llm_outcome_it_did_not_ask_for() -> None:
    result = loop_check_receive(checked(), answer("stray"))
    assert "LOOP_CHECK received an LLM outcome" in result.failure().message
