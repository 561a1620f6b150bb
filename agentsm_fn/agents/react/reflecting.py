"""Reflecting: compress the history with the LLM (000 section 4.11).

Sends the seed's exact compression prompt; on a text reply the whole history
becomes one ``[SUMMARY]`` entry. If the call fails (or returns tool calls or no text), the
history is kept as it is. Either way ``retry_count`` is reset to 0 (a fresh retry
budget) and the state emits ``ReflectDone``. With an empty history there is
nothing to compress, and with the token budget spent no call may be made: both
skip the call (the next Planning then stops with ``BudgetExceeded``).

Entered from Idle (``ThreadTooLong``), it compresses a thread's earlier turns instead:
the newest whole turns within half the thread's context budget are kept, the older
ones and the last summary are summarized by the same kind of call, and the summary is
cut to the room left (:meth:`~agentsm_fn.llm.Conversation.compressed`). If the call
fails, or no call may be made, the older turns are dropped and the last summary kept:
either way the earlier turns a request carries are within the budget.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from pyrsistent import pvector
from returns.result import Result

from agentsm_fn.agents.react.memory import SUMMARY_TOOL, AgentMemory, HistoryEntry
from agentsm_fn.agents.react.prompt import compression_request, thread_compression_request
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome

__all__ = ["receive_summary", "reflect"]

Reflected: TypeAlias = Literal[Event.ReflectDone]


def _spent(memory: AgentMemory) -> bool:
    """The turn's or the thread's token budget is spent: no call may be made."""
    if memory.budget is not None and memory.budget.exhausted_by(memory.total_usage) is not None:
        return True
    thread = memory.config.thread
    return (
        thread.total is not None and thread.spent(memory.conversation.usage + memory.total_usage) is not None
    )


def _thread_over(memory: AgentMemory) -> int | None:
    """The thread's context budget when its earlier turns are over it (None: they are within it)."""
    context = memory.config.thread.context
    return context if context is not None and memory.conversation.over(context) else None


def reflect(
    memory: AgentMemory,
) -> Result[tuple[Reflected, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Request the compression call (or finish at once when the history is empty).

    Example:
        >>> reflect(AgentMemory.new("t")).unwrap()[0].name
        'ReflectDone'
    """
    spent = _spent(memory)
    budget = _thread_over(memory)
    if budget is not None:
        if spent:
            dropped = memory.conversation.compressed("", budget)
            return emit(Event.ReflectDone, memory.evolve(conversation=dropped, retry_count=0))
        return perform(LlmCall(thread_compression_request(memory, budget), purpose="compress"), memory)
    if not memory.history or spent:
        return emit(Event.ReflectDone, memory.evolve(retry_count=0))
    return perform(LlmCall(compression_request(memory), purpose="reflect"), memory)


def receive_summary(
    memory: AgentMemory, outcome: LlmOutcome
) -> Result[tuple[Reflected, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Replace the history by the summary, or keep it if the call failed.

    Example:
        >>> from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind
        >>> m = AgentMemory.new("t").evolve(retry_count=2)
        >>> failed = LlmFailure(kind=LlmFailureKind.TIMEOUT, message="slow")
        >>> event, after = receive_summary(m, failed).unwrap()
        >>> event.name, after.retry_count
        ('ReflectDone', 0)
    """
    budget = _thread_over(memory)
    if budget is not None:
        return _thread_summary(memory, outcome, budget)
    if isinstance(outcome, LlmFailure):
        return emit(Event.ReflectDone, memory.evolve(retry_count=0))
    spent = memory.total_usage + outcome.usage
    if outcome.is_tool_call or not outcome.content.strip():
        return emit(Event.ReflectDone, memory.evolve(retry_count=0, total_usage=spent))
    summary = HistoryEntry(
        step=memory.step,
        tool=ToolCall(f"summary_{memory.step}", SUMMARY_TOOL, {}),
        observation=outcome.content.strip(),
        success=True,
    )
    compressed = memory.evolve(
        history=pvector([summary]),
        retry_count=0,
        total_usage=spent,
    )
    return emit(Event.ReflectDone, compressed)


def _thread_summary(
    memory: AgentMemory, outcome: LlmOutcome, budget: int
) -> Result[tuple[Reflected, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """The older turns replaced by the reply's summary, or dropped when there is none."""
    if isinstance(outcome, LlmFailure):
        dropped = memory.conversation.compressed("", budget)
        return emit(Event.ReflectDone, memory.evolve(conversation=dropped, retry_count=0))
    summary = "" if outcome.is_tool_call else outcome.content
    compressed = memory.conversation.compressed(summary, budget)
    spent = memory.total_usage + outcome.usage
    return emit(Event.ReflectDone, memory.evolve(conversation=compressed, retry_count=0, total_usage=spent))
