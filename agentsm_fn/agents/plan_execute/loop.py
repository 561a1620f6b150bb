"""The handlers of the loop: EXECUTE, OBSERVE and LOOP_CHECK.

* EXECUTE (the only looping state) enforces ``max_iterations``, then makes one
  chat call with the permitted tools: tool calls -> OBSERVE, a final answer ->
  FINALIZE, a provider failure -> HALT. It never runs a tool.
* OBSERVE checks the calls against the policy (a forbidden call never runs),
  asks the shell to run them, stores every result as an observation and a tool
  message, and always goes on to LOOP_CHECK.
* LOOP_CHECK halts on what OBSERVE found, on the time limit, the token budget or
  the iteration limit; stops when a finish tool answered; else loops to EXECUTE.
"""

from __future__ import annotations

from typing import Literal

import attrs
from pyrsistent import PVector
from returns.result import Result

from agentsm_fn.agents.plan_execute.effects import PlanExecuteToolResult, ReadClock, RunTools, ToolBatch
from agentsm_fn.agents.plan_execute.graph import Event, State
from agentsm_fn.agents.plan_execute.memory import Awaiting, PlanExecuteMemory
from agentsm_fn.agents.plan_execute.moves import Reading, advance, audit, finish, halt, summarized
from agentsm_fn.agents.plan_execute.policy import (
    PolicyViolation,
    check_budget,
    check_thread,
    check_time,
    check_tool_calls,
)
from agentsm_fn.agents.plan_execute.prompts import execute_request
from agentsm_fn.agents.plan_execute.values import HaltCause, HaltError, Observation, cause_of, with_call_ids
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import fail, perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.messages import AssistantMessage, Message, ToolCall, ToolResultMessage
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome, LlmReply

__all__ = [
    "execute_enter",
    "execute_receive",
    "loop_check_enter",
    "loop_check_receive",
    "observe_enter",
    "observe_receive",
]

Mem = PlanExecuteMemory
ExecuteOut = Result[
    tuple[Literal[Event.TOOL_CALLS_PRESENT, Event.NO_TOOL_CALLS, Event.ERROR, Event.OUTPUT_INVALID], Mem]
    | Perform[LlmOutcome, Mem],
    Fault,
]
ObserveOut = Result[tuple[Literal[Event.OBSERVED], Mem] | Perform[ToolBatch, Mem], Fault]
LoopOut = Result[
    tuple[Literal[Event.CONTINUE, Event.STOP, Event.VIOLATION, Event.OUTPUT_INVALID], Mem]
    | Perform[float | LlmOutcome | EffectFailure, Mem],
    Fault,
]


def execute_enter(mem: Mem) -> ExecuteOut:
    """EXECUTE: enforce max_iterations, then ask the model for its next actions.

    Example:
        >>> step = execute_enter(PlanExecuteMemory(input="x")).unwrap()
        >>> step.effect.purpose, step.memory.iteration
        ('execute', 1)
        >>> execute_enter(PlanExecuteMemory(input="x", max_iterations=0)).unwrap()[1].error.cause.name
        'MAX_ITERATIONS'
    """
    if mem.iteration >= mem.max_iterations:
        message = f"max_iterations ({mem.max_iterations}) reached before another EXECUTE"
        error = HaltError(cause=HaltCause.MAX_ITERATIONS, state=State.EXECUTE, message=message)
        return halt(Event.ERROR, mem, error)
    waiting = attrs.evolve(mem, iteration=mem.iteration + 1, awaiting=Awaiting.CHAT)
    return perform(LlmCall(execute_request(waiting), purpose="execute"), waiting)


def _provider_failed(mem: Mem, failure: LlmFailure) -> ExecuteOut:
    cause = cause_of(failure)
    message = f"the executor call failed (no retries in EXECUTE): {failure.describe()}"
    error = HaltError(cause=cause, state=State.EXECUTE, message=message, llm_failure=failure)
    return halt(Event.ERROR, mem, error)


def execute_receive(mem: Mem, outcome: LlmOutcome, result: Reading = None) -> ExecuteOut:
    """EXECUTE after the reply: tool calls -> OBSERVE, an answer -> FINALIZE, a failure -> HALT.

    Example:
        >>> mem = PlanExecuteMemory(input="x", iteration=1)
        >>> ev, after = execute_receive(mem, LlmReply(tool_calls=(ToolCall("c1", "search"),))).unwrap()
        >>> ev.name, after.pending_tool_calls[0].name, type(after.messages[-1]).__name__
        ('TOOL_CALLS_PRESENT', 'search', 'AssistantMessage')
    """
    if mem.awaiting is Awaiting.SUMMARY:
        return summarized(Event.NO_TOOL_CALLS, State.EXECUTE, mem, outcome, result)
    if isinstance(outcome, LlmFailure):
        return _provider_failed(mem, outcome)
    calls = with_call_ids(outcome.tool_calls, mem.iteration)
    replied = attrs.evolve(
        mem,
        usage=mem.usage + outcome.usage,
        messages=mem.messages.append(AssistantMessage(content=outcome.content, tool_calls=calls)),
    )
    if calls:
        names = ", ".join(call.name for call in calls)
        requested = audit(attrs.evolve(replied, pending_tool_calls=calls), State.EXECUTE, "tool_calls", names)
        return advance(Event.TOOL_CALLS_PRESENT, State.EXECUTE, requested, f"Tool calls requested: {names}")
    if not outcome.content.strip():
        message = "the model returned neither tool calls nor an answer"
        error = HaltError(cause=HaltCause.PROVIDER_FAILURE, state=State.EXECUTE, message=message)
        return halt(Event.ERROR, replied, error)
    answered = audit(replied, State.EXECUTE, "answer", f"final answer ({len(outcome.content)} characters)")
    return finish(Event.NO_TOOL_CALLS, State.EXECUTE, answered, outcome.content, "no_tool_calls", result)


def _observed(
    mem: Mem,
    calls: tuple[ToolCall, ...],
    results: tuple[PlanExecuteToolResult, ...],
    violation: PolicyViolation | None,
) -> Result[tuple[Literal[Event.OBSERVED], Mem], Fault]:
    by_id = {result.call_id: result for result in results}
    messages: PVector[Message] = mem.messages
    observations = mem.observations
    logged = mem
    for call in calls:
        result = by_id.get(call.id) or PlanExecuteToolResult(
            call_id=call.id, name=call.name, content="the shell returned no result", is_error=True
        )
        messages = messages.append(
            ToolResultMessage(call.id, call.name, result.content, is_error=result.is_error)
        )
        observations = observations.append(
            Observation(
                iteration=mem.iteration,
                call_id=call.id,
                tool=call.name,
                content=result.content,
                is_error=result.is_error,
            )
        )
        status = "error" if result.is_error else "ok"
        logged = audit(logged, State.OBSERVE, "tool", f"{call.name} ({call.id}): {status}")
        if violation is None and result.is_error and mem.config.policy.halt_on_tool_error:
            message = f"tool {call.name!r} failed: {result.content[:300]}"
            violation = PolicyViolation("halt_on_tool_error", message, HaltCause.TOOL_FAILURE)
    ran = 0 if violation is not None and violation.cause is HaltCause.POLICY_VIOLATION else len(calls)
    stored = attrs.evolve(
        logged,
        messages=messages,
        observations=observations,
        pending_tool_calls=(),
        tool_calls_made=mem.tool_calls_made + ran,
        violation=violation,
    )
    noun = "tool result" if len(calls) == 1 else "tool results"
    return advance(Event.OBSERVED, State.OBSERVE, stored, f"Observed {len(calls)} {noun}")


def observe_enter(mem: Mem) -> ObserveOut:
    """OBSERVE: check the pending calls against the policy, then ask the shell to run them.

    Example:
        >>> from agentsm_fn.agents.plan_execute.policy import PlanExecutePolicy
        >>> from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
        >>> cfg = PlanExecuteConfig(policy=PlanExecutePolicy(forbidden_tools={"rm"}))
        >>> mem = PlanExecuteMemory(input="x", config=cfg, pending_tool_calls=(ToolCall("c1", "rm"),))
        >>> ev, after = observe_enter(mem).unwrap()
        >>> ev.name, after.violation.rule, after.observations[0].is_error
        ('OBSERVED', 'forbidden_tools', True)
    """
    calls = mem.pending_tool_calls
    violation = check_tool_calls(mem.config.policy, calls, mem.tool_calls_made)
    if violation is not None:
        blocked = tuple(
            PlanExecuteToolResult(
                call_id=c.id, name=c.name, content=f"blocked by policy: {violation.message}", is_error=True
            )
            for c in calls
        )
        return _observed(audit(mem, State.OBSERVE, "violation", violation.message), calls, blocked, violation)
    if not calls:  # a step agent's result (its failure kept for LOOP_CHECK), or nothing to run
        return _observed(mem, calls, (), mem.violation)
    waiting = attrs.evolve(mem, awaiting=Awaiting.TOOLS)
    safe = mem.config.retry_safe_tools
    return perform(RunTools(calls, retry_safe=all(c.name in safe for c in calls)), waiting)


def observe_receive(mem: Mem, batch: ToolBatch) -> ObserveOut:
    """OBSERVE after the tools ran: store every result; a failure is noted for LOOP_CHECK.

    Example:
        >>> mem = PlanExecuteMemory(input="x", iteration=1, pending_tool_calls=(ToolCall("c1", "t"),))
        >>> batch = ToolBatch((PlanExecuteToolResult(call_id="c1", name="t", content="42"),))
        >>> ev, after = observe_receive(mem, batch).unwrap()
        >>> ev.name, after.observations[0].content, after.messages[-1].tool_call_id, after.tool_calls_made
        ('OBSERVED', '42', 'c1', 1)
    """
    return _observed(mem, mem.pending_tool_calls, batch.results, None)


def _finish_tool_result(mem: Mem) -> Observation | None:
    finishers = mem.config.finish_tools
    if not finishers:
        return None
    for index in range(len(mem.observations) - 1, -1, -1):
        seen = mem.observations[index]
        if seen.iteration != mem.iteration:
            return None
        if seen.tool in finishers and not seen.is_error:
            return seen
    return None


def _violated(mem: Mem, violation: PolicyViolation) -> LoopOut:
    error = HaltError(
        cause=violation.cause, state=State.LOOP_CHECK, message=violation.message, rule=violation.rule
    )
    return halt(Event.VIOLATION, mem, error)


def _evaluate(mem: Mem, now: float | None, result: Reading) -> LoopOut:
    policy = mem.config.policy
    thread = check_thread(mem.config.thread, mem.conversation.usage + mem.usage)
    found = (
        mem.violation or check_time(policy, mem.started_at, now) or check_budget(policy, mem.usage) or thread
    )
    if found is not None:
        return _violated(mem, found)
    finished = _finish_tool_result(mem)
    if finished is not None:
        stopped_by = f"finish_tool:{finished.tool}"
        return finish(Event.STOP, State.LOOP_CHECK, mem, finished.content, stopped_by, result)
    if mem.iteration >= mem.max_iterations:
        message = f"max_iterations ({mem.max_iterations}) reached and the model still calls tools"
        return _violated(mem, PolicyViolation("max_iterations", message, HaltCause.MAX_ITERATIONS))
    left = mem.max_iterations - mem.iteration
    return advance(Event.CONTINUE, State.LOOP_CHECK, mem, f"Continue ({left} iterations left)")


def loop_check_enter(mem: Mem, result: Reading = None) -> LoopOut:
    """LOOP_CHECK: read the clock if there is a time limit, else evaluate at once.

    Example:
        >>> loop_check_enter(PlanExecuteMemory(input="x", iteration=1)).unwrap()[0].name
        'CONTINUE'
        >>> loop_check_enter(PlanExecuteMemory(input="x", iteration=20)).unwrap()[1].error.cause.name
        'MAX_ITERATIONS'
    """
    if mem.config.policy.time_limit_seconds is not None:
        return perform(ReadClock(), attrs.evolve(mem, awaiting=Awaiting.CLOCK))
    return _evaluate(mem, None, result)


def loop_check_receive(
    mem: Mem, outcome: float | LlmOutcome | EffectFailure, result: Reading = None
) -> LoopOut:
    """LOOP_CHECK after the clock reading (or after the summary call of a stop).

    A clock that cannot be read halts the run (TIMEOUT): the time limit cannot be checked.
    The first reading starts the limit if INTAKE could not read the clock.

    Example:
        >>> from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
        >>> from agentsm_fn.agents.plan_execute.policy import PlanExecutePolicy
        >>> cfg = PlanExecuteConfig(policy=PlanExecutePolicy(time_limit_seconds=10))
        >>> mem = PlanExecuteMemory(input="x", config=cfg, started_at=0.0, iteration=1)
        >>> loop_check_receive(mem, 11.0).unwrap()[1].error.cause.name
        'TIMEOUT'
    """
    if isinstance(outcome, LlmReply | LlmFailure):
        if mem.awaiting is Awaiting.SUMMARY:
            return summarized(Event.STOP, State.LOOP_CHECK, mem, outcome, result)
        return fail(f"LOOP_CHECK received an LLM outcome while awaiting {mem.awaiting.value}")
    if isinstance(outcome, EffectFailure):
        message = f"the time limit cannot be checked: clock unavailable ({outcome.problem()})"
        return _violated(mem, PolicyViolation("time_limit_seconds", message, HaltCause.TIMEOUT))
    if mem.started_at is None:
        mem = attrs.evolve(mem, started_at=outcome)
    return _evaluate(mem, outcome, result)
