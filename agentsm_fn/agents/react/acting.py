"""Acting and ParallelActing: run the chosen tool call(s); failures become observations.

A call of an agent tool (:mod:`agentsm_fn.agents.react.agent_tools`) is a child run instead of a
:class:`RunTool`; its outcome is the call's result. ParallelActing runs a batch's agent calls one
after another (each result kept in ``parallel_results``), then the other calls as one batch.

Acting (000 section 4.9): no ``current_tool_call`` is a bug in memory (set ``error``,
emit ``FatalError``); an unknown tool or invalid arguments fail before running
(``ToolFailure``, never a crash); otherwise request :class:`RunTool` and record
``SUCCESS: {output}`` or ``ERROR: {type}: {msg}`` as ``last_observation``.

ParallelActing (001): prechecks every pending call, runs the rest as one
:class:`RunToolBatch`, and stores one result per call in ``parallel_results``, in
call order whatever order they finished in. ``ToolSuccess`` if all succeeded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

from returns.result import Result

from agentsm_fn.agents.react.agent_tools import InputFilter, agent_run, child_result, child_text
from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ReactToolResult, ToolBatchResult
from agentsm_fn.agents.react.policy import precheck
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Effectful, effectful, emit, perform
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.teams.values import ChildFinished, ChildOutcome

__all__ = ["act", "act_in_parallel", "acting_with", "receive_act", "receive_parallel"]

Acted: TypeAlias = Literal[Event.ToolSuccess, Event.ToolFailure]
Handed: TypeAlias = Literal[Event.ToolSuccess, Event.ToolFailure, Event.HandedOff]


def _run(memory: AgentMemory, call: ToolCall) -> RunTool:
    definition = memory.tool(call.name)
    if definition is None:
        return RunTool(call)
    return RunTool(call, timeout=definition.timeout, retry_safe=definition.retry_safe)


def _observe(memory: AgentMemory, result: ReactToolResult) -> Result[tuple[Acted, AgentMemory], Fault]:
    observed = memory.evolve(last_observation=result.observation)
    return emit(Event.ToolSuccess if result.ok else Event.ToolFailure, observed)


def act(
    memory: AgentMemory, filters: Mapping[str, InputFilter] | None = None
) -> Result[
    tuple[Literal[Event.FatalError, Event.ToolFailure], AgentMemory]
    | Perform[ReactToolResult | ChildOutcome, AgentMemory],
    Fault,
]:
    """Validate the current tool call, then request running it.

    Example:
        >>> event, m = act(AgentMemory.new("t")).unwrap()
        >>> event.name, m.error
        ('FatalError', 'Acting entered without a current_tool_call')
    """
    call = memory.current_tool_call
    if call is None:
        return emit(Event.FatalError, memory.evolve(error="Acting entered without a current_tool_call"))
    failed = precheck(memory, call)
    if failed is not None:
        return emit(Event.ToolFailure, memory.evolve(last_observation=failed.observation))
    child = agent_run(memory, call, filters)
    if child is not None:
        return perform(child, memory)
    return perform(_run(memory, call), memory)


def receive_act(
    memory: AgentMemory, outcome: ReactToolResult | ChildOutcome
) -> Result[tuple[Handed, AgentMemory] | Perform[ReactToolResult | ChildOutcome, AgentMemory], Fault]:
    """Record the tool's result as ``last_observation``.

    Example:
        >>> r = ReactToolResult(call_id="c", name="t", ok=True, output="4")
        >>> event, m = receive_act(AgentMemory.new("t"), r).unwrap()
        >>> event.name, m.last_observation
        ('ToolSuccess', 'SUCCESS: 4')
    """
    if isinstance(outcome, ReactToolResult):
        return _observe(memory, outcome)
    call = memory.current_tool_call or ToolCall("", outcome.program, {})
    definition = memory.tool(call.name)
    if isinstance(outcome, ChildFinished) and definition is not None and definition.hands_off:
        answer = child_text(outcome.result)
        return emit(
            Event.HandedOff, memory.evolve(final_answer=answer, last_observation=f"SUCCESS: {answer}")
        )
    return _observe(memory, child_result(call, outcome))


def acting_with(
    filters: Mapping[str, InputFilter],
) -> Effectful[Event, AgentMemory, ReactToolResult | ChildOutcome]:
    """Acting whose handoffs show the receiving agent what ``filters`` (by tool name) keep.

    Example:
        >>> acting_with({"transfer_to_refunds": lambda messages: ()}).failure_event.name
        'ToolFailure'
    """

    def act_filtered(
        memory: AgentMemory,
    ) -> Result[
        tuple[Literal[Event.FatalError, Event.ToolFailure], AgentMemory]
        | Perform[ReactToolResult | ChildOutcome, AgentMemory],
        Fault,
    ]:
        return act(memory, filters)

    return effectful(act_filtered, receive_act, failure_event=Event.ToolFailure)


def _prechecked(memory: AgentMemory) -> tuple[ReactToolResult | None, ...]:
    return tuple(precheck(memory, call) for call in memory.pending_tool_calls)


def _merge(memory: AgentMemory, ran: tuple[ReactToolResult, ...]) -> Result[tuple[Acted, AgentMemory], Fault]:
    """Fill the precheck gaps with the batch's results, keeping call order."""
    pending = iter(ran)
    children = {result.call_id: result for result in memory.parallel_results}
    results = tuple(
        checked
        if checked is not None
        else children.get(call.id, _missing(call))
        if agent_run(memory, call) is not None
        else next(pending, _missing(call))
        for call, checked in zip(memory.pending_tool_calls, _prechecked(memory), strict=True)
    )
    event: Acted = Event.ToolSuccess if all(r.ok for r in results) else Event.ToolFailure
    return emit(event, memory.evolve(parallel_results=results))


def _missing(call: ToolCall) -> ReactToolResult:
    return ReactToolResult.failure(call.id, call.name, "MissingResult", "the tool runner returned no result")


def act_in_parallel(
    memory: AgentMemory,
) -> Result[
    tuple[Literal[Event.FatalError, Event.ToolSuccess, Event.ToolFailure], AgentMemory]
    | Perform[ToolBatchResult | ChildOutcome, AgentMemory],
    Fault,
]:
    """Request the batch of every pending call that passes its precheck.

    Example:
        >>> event, m = act_in_parallel(AgentMemory.new("t")).unwrap()
        >>> event.name
        'FatalError'
    """
    if not memory.pending_tool_calls:
        message = "ParallelActing entered without pending_tool_calls"
        return emit(Event.FatalError, memory.evolve(error=message))
    calls = [
        c for c, checked in zip(memory.pending_tool_calls, _prechecked(memory), strict=True) if not checked
    ]
    done = {result.call_id for result in memory.parallel_results}
    for call in calls:
        child = agent_run(memory, call)
        if child is not None and call.id not in done:
            return perform(child, memory)
    runnable = tuple(_run(memory, call) for call in calls if agent_run(memory, call) is None)
    if not runnable:
        return _merge(memory, ())
    return perform(RunToolBatch(runnable), memory)


def receive_parallel(
    memory: AgentMemory, outcome: ToolBatchResult | ChildOutcome
) -> Result[
    tuple[Literal[Event.FatalError, Event.ToolSuccess, Event.ToolFailure], AgentMemory]
    | Perform[ToolBatchResult | ChildOutcome, AgentMemory],
    Fault,
]:
    """Merge the batch's results with the precheck failures, in call order.

    Example:
        >>> m = AgentMemory.new("t")
        >>> receive_parallel(m, ToolBatchResult(())).unwrap()[0].name
        'ToolSuccess'
    """
    if isinstance(outcome, ToolBatchResult):
        return _merge(memory, outcome.results)
    done = {result.call_id for result in memory.parallel_results}
    asked = next(c for c in memory.pending_tool_calls if agent_run(memory, c) and c.id not in done)
    return act_in_parallel(
        memory.evolve(parallel_results=(*memory.parallel_results, child_result(asked, outcome)))
    )
