"""Planning: guard the step and token budgets, ask the LLM, decide the next move.

Rules (000 section 4.8, 001):

* ``step >= max_steps`` before the call: set ``error``, emit ``MaxSteps``;
* the token budget is spent (the turn's, or the thread's over every turn): set ``error``,
  emit ``BudgetExceeded``;
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
  else set ``final_answer``, emit ``LlmFinalAnswer``;
* with a typed result (``memory.output``): a final answer that is a valid result sets
  ``final_answer`` (its text) and ``result`` (the value), emits ``LlmFinalAnswer``; one that
  is not (no JSON object, the schema broken, the class refusing it, an output validator's
  problem) is appended to ``rejected_outputs`` with every problem, emits ``OutputInvalid``.
  ``min_answer_length`` does not apply to a typed result.

:func:`receive_plan` checks a typed result against its schema alone (its value is a
frozen JSON object); :func:`receiving` makes the receive half for a result type whose
values are of a class, or that has output validators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias, TypedDict, TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.agents.output.result_type import ResultType
from agentsm_fn.agents.output.values import OutputSpec, RejectedOutput
from agentsm_fn.agents.react.memory import AgentMemory, HumanApprovalRequest
from agentsm_fn.agents.react.policy import approval_reason
from agentsm_fn.agents.react.prompt import planning_request
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.json import JsonObject
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome, LlmReply, Usage

__all__ = ["Receive", "plan", "receive_plan", "receiving"]

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
    Event.OutputInvalid,
]

T = TypeVar("T")

Receive: TypeAlias = Callable[
    [AgentMemory, LlmOutcome], Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]
]
"""Planning's receive half (:func:`receive_plan`, or one made by :func:`receiving`)."""


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
    thread = memory.config.thread
    if thread.total is not None:
        spent = thread.spent(memory.conversation.usage + memory.total_usage)
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
    return _receive(memory, outcome, None)


def receiving(result: ResultType[T]) -> Receive:
    """Planning's receive half for ``result``: its values are of its class, its validators run.

    Its name (what a machine's fingerprint reads) carries the result's name.

    Example:
        >>> from agentsm_fn.agents.output import result_type
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> receive = receiving(result_type({"type": "object", "required": ["n"]}, name="Count"))
        >>> receive.__qualname__
        'receive_plan[Count]'
        >>> memory = AgentMemory.new("t").evolve(output=result_type({"type": "object"}).spec)
        >>> event, m = receive(memory, LlmReply(content="{}")).unwrap()
        >>> event.name, m.rejected_outputs[0].describe()
        ('OutputInvalid', "$: 'n' is a required property")
    """

    def receive(
        memory: AgentMemory, outcome: LlmOutcome
    ) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
        return _receive(memory, outcome, result)

    receive.__qualname__ = receive.__name__ = f"receive_plan[{result.name}]"
    return receive


def _receive(
    memory: AgentMemory, outcome: LlmOutcome, result: ResultType[T] | None
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    if isinstance(outcome, LlmFailure):
        return emit(Event.FatalError, memory.evolve(error=f"LLM call failed: {outcome.describe()}"))
    # What every branch records about the reply, applied with the branch's own changes (one copy).
    seen: _Seen = {
        "total_usage": memory.total_usage + outcome.usage,
        "confidence_score": outcome.confidence,
    }
    if outcome.is_tool_call:
        return _tool_calls(memory, outcome, seen)
    if memory.output is not None:
        if result is None:  # the schema alone: its value is a frozen JSON object
            return _typed_answer(memory, outcome.content, seen, _schema_only(memory.output))
        return _typed_answer(memory, outcome.content, seen, result)
    return _final_answer(memory, outcome.content, seen, result)


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


def _schema_only(spec: OutputSpec) -> ResultType[JsonObject]:
    return ResultType[JsonObject](kind="schema", spec=spec)


def _final_answer(
    memory: AgentMemory, content: str, seen: _Seen, result: ResultType[T] | None
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    if len(content.strip()) < memory.config.min_answer_length:
        return emit(Event.AnswerTooShort, memory.evolve(**seen))
    if result is not None and result.validators:  # text with output validators
        return _typed_answer(memory, content, seen, result)
    return emit(Event.LlmFinalAnswer, memory.evolve(**seen, final_answer=content))


def _typed_answer(
    memory: AgentMemory, content: str, seen: _Seen, result: ResultType[T]
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    match result.check(content):
        case Success(value):
            done = memory.evolve(**seen, final_answer=content, result=result.stored(value))
            return emit(Event.LlmFinalAnswer, done)
        case Failure(problems):
            rejected = RejectedOutput(step=memory.step, reply=content, problems=problems)
            return emit(
                Event.OutputInvalid,
                memory.evolve(**seen, rejected_outputs=(*memory.rejected_outputs, rejected)),
            )
    raise AssertionError("unreachable")  # pragma: no cover
