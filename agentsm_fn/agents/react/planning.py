"""Planning: guard the step and token budgets, ask the LLM, decide the next move.

Rules (000 section 4.8, 001):

* ``step >= max_steps`` before the call: set ``error``, emit ``MaxSteps``;
* the token budget is spent: set ``error``, emit ``BudgetExceeded``;
* otherwise increment ``step`` and request an :class:`LlmCall` on the routed model;
* provider failure: set ``error``, emit ``FatalError``;
* tool call below ``confidence_threshold`` with retries left: ``retry_count += 1``,
  emit ``LowConfidence``;
* a requested tool is blacklisted: set ``refused_tools`` (their names, for the trace),
  emit ``ToolBlacklisted`` (``error`` stays unset); the next plan step clears them;
* several calls, ``parallel_tools`` on, none needing approval: set
  ``pending_tool_calls``, emit ``LlmParallelToolCalls`` (otherwise the first call is used);
* a call that needs approval: set ``current_tool_call`` and ``pending_approval``,
  emit ``HumanApprovalRequired``; else set ``current_tool_call``, emit ``LlmToolCall``;
* final answer shorter than ``min_answer_length``: emit ``AnswerTooShort``;
  else set ``final_answer``, emit ``LlmFinalAnswer``.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, TypedDict

from returns.result import Result

from agentsm_fn.agents.react.memory import AgentMemory, HumanApprovalRequest
from agentsm_fn.agents.react.policy import approval_reason
from agentsm_fn.agents.react.prompt import planning_request
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome, LlmReply, Usage

__all__ = ["plan", "receive_plan"]

Guarded: TypeAlias = Literal[Event.MaxSteps, Event.BudgetExceeded]
Decided: TypeAlias = Literal[
    Event.FatalError,
    Event.LowConfidence,
    Event.ToolBlacklisted,
    Event.LlmParallelToolCalls,
    Event.HumanApprovalRequired,
    Event.LlmToolCall,
    Event.AnswerTooShort,
    Event.LlmFinalAnswer,
]


class _Seen(TypedDict):
    """What Planning records about every reply (usage and confidence)."""

    total_usage: Usage
    confidence_score: float


def plan(
    memory: AgentMemory,
) -> Result[tuple[Guarded, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Check the step and token budgets, then request the planning call.

    Example:
        >>> out = plan(AgentMemory.new("t")).unwrap()
        >>> out.effect.purpose, out.memory.step
        ('plan', 1)
    """
    if memory.refused_tools:  # the last plan's refusal is over: this step starts afresh
        memory = memory.evolve(refused_tools=())
    if memory.step >= memory.config.max_steps:
        message = f"Max steps ({memory.config.max_steps}) reached without a final answer"
        return emit(Event.MaxSteps, memory.evolve(error=message))
    if memory.budget is not None:
        spent = memory.budget.exhausted_by(memory.total_usage)
        if spent is not None:
            return emit(Event.BudgetExceeded, memory.evolve(error=f"Token budget exceeded: {spent}"))
    stepped = memory.evolve(step=memory.step + 1)
    return perform(LlmCall(planning_request(stepped), purpose="plan"), stepped)


def receive_plan(
    memory: AgentMemory, outcome: LlmOutcome
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Turn the LLM's reply (or failure) into the next event.

    Example:
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> reply = LlmReply(content="The answer is four, clearly.")
        >>> event, m = receive_plan(AgentMemory.new("t"), reply).unwrap()
        >>> event.name, m.final_answer
        ('LlmFinalAnswer', 'The answer is four, clearly.')
    """
    if isinstance(outcome, LlmFailure):
        return emit(Event.FatalError, memory.evolve(error=f"LLM call failed: {outcome.describe()}"))
    # What every branch records about the reply, applied with the branch's own changes (one copy).
    seen: _Seen = {
        "total_usage": memory.total_usage + outcome.usage,
        "confidence_score": outcome.confidence,
    }
    if outcome.is_tool_call:
        return _tool_calls(memory, outcome, seen)
    return _final_answer(memory, outcome.content, seen)


def _tool_calls(
    memory: AgentMemory, reply: LlmReply, seen: _Seen
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    config = memory.config
    if reply.confidence < config.confidence_threshold and memory.retry_count < config.max_retries:
        return emit(Event.LowConfidence, memory.evolve(**seen, retry_count=memory.retry_count + 1))
    calls = reply.tool_calls
    banned = memory.blacklisted_tools
    if banned and any(call.name in banned for call in calls):
        refused = tuple(dict.fromkeys(call.name for call in calls if call.name in banned))
        return emit(Event.ToolBlacklisted, memory.evolve(**seen, refused_tools=refused))
    needs_human = any(approval_reason(memory, call) is not None for call in calls)
    if len(calls) > 1 and config.parallel_tools and not needs_human:
        return emit(Event.LlmParallelToolCalls, memory.evolve(**seen, pending_tool_calls=calls))
    call = calls[0]
    reason = approval_reason(memory, call)
    if reason is not None:
        request = HumanApprovalRequest(step=memory.step, tool_call=call, reason=reason)
        chosen = memory.evolve(**seen, current_tool_call=call, pending_approval=request)
        return emit(Event.HumanApprovalRequired, chosen)
    return emit(Event.LlmToolCall, memory.evolve(**seen, current_tool_call=call))


def _final_answer(
    memory: AgentMemory, content: str, seen: _Seen
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    if len(content.strip()) < memory.config.min_answer_length:
        return emit(Event.AnswerTooShort, memory.evolve(**seen))
    return emit(Event.LlmFinalAnswer, memory.evolve(**seen, final_answer=content))
