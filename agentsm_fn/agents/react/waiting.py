"""WaitingForHuman: ask a human about the pending tool call (001).

``Approved`` -> ``HumanApproved`` (Acting runs the call); ``Rejected(reason)`` ->
``HumanRejected`` (Observing commits the rejection as an ``ERROR:`` observation);
``Modified(arguments)`` -> ``HumanModified`` (Acting runs the call with the new
arguments; the call's id and name are kept). The decision is recorded in
``pending_approval``. Without a pending approval, memory is corrupt: ``FatalError``.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import attrs
from returns.result import Result

from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ApprovalDecision, Approved, Modified, Rejected
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, perform
from agentsm_fn.llm.messages import ToolCall

__all__ = ["ask_human", "receive_decision"]

Decided: TypeAlias = Literal[Event.HumanApproved, Event.HumanRejected, Event.HumanModified]


def ask_human(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.FatalError], AgentMemory] | Perform[ApprovalDecision, AgentMemory], Fault]:
    """Request the human's decision on ``pending_approval``.

    Example:
        >>> ask_human(AgentMemory.new("t")).unwrap()[0].name
        'FatalError'
    """
    request = memory.pending_approval
    if request is None or memory.current_tool_call is None:
        message = "WaitingForHuman entered without a pending approval and tool call"
        return emit(Event.FatalError, memory.evolve(error=message))
    return perform(AskHuman(request), memory)


def receive_decision(
    memory: AgentMemory, outcome: ApprovalDecision
) -> Result[tuple[Decided, AgentMemory] | Perform[ApprovalDecision, AgentMemory], Fault]:
    """Record the decision and route to Acting (approved, modified) or Observing (rejected).

    Example:
        >>> from agentsm_fn.agents.react.memory import HumanApprovalRequest
        >>> call = ToolCall("c1", "rm", {"path": "/"})
        >>> m = attrs.evolve(AgentMemory.new("t"), current_tool_call=call,
        ...                  pending_approval=HumanApprovalRequest(step=1, tool_call=call, reason="r"))
        >>> event, after = receive_decision(m, Modified({"path": "/tmp"})).unwrap()
        >>> event.name, after.current_tool_call.arguments["path"]
        ('HumanModified', '/tmp')
    """
    request = memory.pending_approval
    decided = (
        memory if request is None else memory.evolve(pending_approval=attrs.evolve(request, decision=outcome))
    )
    match outcome:
        case Approved():
            return emit(Event.HumanApproved, decided)
        case Rejected():
            return emit(Event.HumanRejected, decided)
        case Modified(arguments=arguments):
            call = memory.current_tool_call
            changed = None if call is None else ToolCall(call.id, call.name, arguments)
            return emit(Event.HumanModified, decided.evolve(current_tool_call=changed))
