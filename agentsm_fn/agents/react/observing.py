"""Idle and Observing: the two states that never ask the world.

Idle (000 section 4.7) emits ``Start`` and leaves memory alone (its trace line,
``task=... task_type=... max_steps=...``, comes from the machine's narrator); a turn
of a thread whose earlier turns are over the thread's context budget emits
``ThreadTooLong`` instead, and Reflecting compresses them before the first plan.

Observing (000 section 4.10) commits the finished cycle to ``history``: the
single call and ``last_observation``, the parallel batch (one entry per call, in
call order), or a human rejection (an ``ERROR: HumanRejected`` observation). It
then clears ``current_tool_call``, ``last_observation``, ``pending_tool_calls``,
``parallel_results`` and ``pending_approval``, and emits ``NeedsReflection`` when
``step`` is a multiple of ``reflect_every_n_steps`` (> 0), else ``Continue``.
With nothing to commit, memory is corrupt: a :class:`Fault` (the run's
``MemoryError``), since no event could route it.
"""

from __future__ import annotations

from typing import Literal

from returns.result import Failure, Result

from agentsm_fn.agents.react.memory import AgentMemory, HistoryEntry
from agentsm_fn.agents.react.outcomes import Rejected
from agentsm_fn.agents.react.policy import should_reflect
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit

__all__ = ["idle", "observe"]


def idle(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.Start, Event.ThreadTooLong, Event.CheckInput], AgentMemory], Fault]:
    """Start the run (first compressing a thread's earlier turns if over budget); memory is unchanged.

    With input guardrails in memory it emits ``CheckInput``: the guarding state checks the
    message first (and compresses the thread after, when it passes).

    Example:
        >>> from agentsm_fn.llm.conversation import Conversation
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> idle(AgentMemory.new("t")).unwrap()[0].name
        'Start'
        >>> long = Conversation().then([UserMessage("x" * 100_000)])
        >>> idle(AgentMemory.new("").start_turn(long, "t")).unwrap()[0].name
        'ThreadTooLong'
    """
    if any(spec.stage == "input" for spec in memory.guardrails):
        return emit(Event.CheckInput, memory)
    if memory.conversation.over(memory.config.thread.context):
        return emit(Event.ThreadTooLong, memory)
    return emit(Event.Start, memory)


def _entries(memory: AgentMemory) -> tuple[HistoryEntry, ...] | None:
    step = memory.step
    approval = memory.pending_approval
    call = memory.current_tool_call
    if approval is not None and isinstance(approval.decision, Rejected):
        reason = approval.decision.reason or "no reason given"
        rejected = call if call is not None else approval.tool_call
        observation = f"ERROR: HumanRejected: the user rejected this call: {reason}"
        return (HistoryEntry(step=step, tool=rejected, observation=observation, success=False),)
    if memory.parallel_results:
        return tuple(
            HistoryEntry(step=step, tool=c, observation=r.observation, success=r.ok)
            for c, r in zip(memory.pending_tool_calls, memory.parallel_results, strict=True)
        )
    if call is not None and memory.last_observation is not None:
        observation = memory.last_observation
        success = observation.startswith("SUCCESS: ")
        return (HistoryEntry(step=step, tool=call, observation=observation, success=success),)
    return None


def observe(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.Continue, Event.NeedsReflection], AgentMemory], Fault]:
    """Commit the cycle to history, clear the cycle's fields, decide on reflection.

    Example:
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> m = AgentMemory.new("t").evolve(step=1, current_tool_call=ToolCall("c", "x", {}),
        ...                  last_observation="SUCCESS: ok")
        >>> event, after = observe(m).unwrap()
        >>> event.name, len(after.history), after.current_tool_call, after.last_observation
        ('Continue', 1, None, None)
    """
    if len(memory.parallel_results) not in (0, len(memory.pending_tool_calls)):
        return Failure(Fault("Observing: parallel_results and pending_tool_calls differ in length"))
    entries = _entries(memory)
    if entries is None:
        return Failure(Fault("Observing entered with no tool call result to commit"))
    committed = memory.evolve(
        history=memory.history.extend(entries),
        current_tool_call=None,
        last_observation=None,
        pending_tool_calls=(),
        parallel_results=(),
        pending_approval=None,
    )
    return emit(Event.NeedsReflection if should_reflect(committed) else Event.Continue, committed)
