"""The reviewing states: a human decides on a guardrail's trip, through the approval path (``AskHuman``).

ReviewingInput, ReviewingToolCalls and ReviewingOutput, one per guarding state, share this
handler.

The request names the trip (``reason``: the guardrail, its stage and why it tripped) and
the subject: the tool call itself when the turn has one, else a call named
``guardrail:<name>`` whose arguments carry the stage and the text under review, so every
approval channel (a callback, a suspended run answered from the command line, the server or
an AG-UI client) shows it as it shows a tool call. ``Approved`` records an approval: the
guarding state's checks go on; ``Rejected`` records a rejection: the guarding state refuses.
``Modified`` is applied, never taken as a plain approval: on a review of the one tool call
the human was shown, the call runs with the modified arguments (an approval, noted as
modified; the remaining guardrails check the modified call); on any other review (the
input, the output, several calls: the human saw a ``guardrail:<name>`` call, not a
subject whose arguments could change) it cannot be applied, so it is a rejection, noted so.
No decision (the effect failed) is a rejection, as ``AskHuman`` makes it. Then it goes back
to its guarding state (``GuardrailReviewed``).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import attrs
from returns.result import Failure, Result

from agentsm_fn.agents.guardrails import GuardrailCheck, describe_subject
from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.guards import INPUT, LOG, OUTPUT, turn_calls
from agentsm_fn.agents.react.memory import AgentMemory, HumanApprovalRequest
from agentsm_fn.agents.react.outcomes import ApprovalDecision, Modified, Rejected
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, perform
from agentsm_fn.llm.json import JsonObject
from agentsm_fn.llm.messages import ToolCall

__all__ = ["REVIEWING", "ask_review", "receive_review", "review_request"]

REVIEWING = (State.ReviewingInput, State.ReviewingToolCalls, State.ReviewingOutput)
"""The reviewing states, one per guarding state."""

Reviewed: TypeAlias = Literal[Event.GuardrailReviewed]


def _pending(memory: AgentMemory) -> GuardrailCheck | None:
    last = LOG.last_trip(memory)
    return last if last is not None and last.review is None else None


def review_request(memory: AgentMemory, check: GuardrailCheck) -> HumanApprovalRequest:
    """What the human is asked about a tripped ``check``.

    Example:
        >>> from agentsm_fn.agents.guardrails import OnTrip, Trip
        >>> trip = Trip(guardrail="own", stage="input", on_trip=OnTrip.ASK_HUMAN, reason="ACME's", message="")
        >>> request = review_request(AgentMemory.new("ACME's invoices"), GuardrailCheck(
        ...     guardrail="own", stage="input", at=0, trip=trip))
        >>> request.tool_call.name, dict(request.tool_call.arguments)["text"], request.reason
        ('guardrail:own', "ACME's invoices", "guardrail own (input) tripped: ACME's")
    """
    trip = check.trip
    reason = "" if trip is None else trip.describe()
    calls = turn_calls(memory)
    if check.stage not in (INPUT, OUTPUT) and len(calls) == 1:
        return HumanApprovalRequest(step=memory.step, tool_call=calls[0], reason=reason)
    if check.stage == INPUT:
        text = memory.task
    elif check.stage == OUTPUT:
        text = memory.final_answer or ""
    else:
        text = describe_subject(calls)
    call = ToolCall(
        id=f"guardrail-{check.stage}-{check.at}",
        name=f"guardrail:{check.guardrail}",
        arguments={"stage": check.stage, "text": text},
    )
    return HumanApprovalRequest(step=memory.step, tool_call=call, reason=reason)


def ask_review(memory: AgentMemory) -> Result[Perform[ApprovalDecision, AgentMemory], Fault]:
    """Ask a human about the last check, a trip not yet reviewed (else memory is corrupt: a Fault).

    Example:
        >>> ask_review(AgentMemory.new("t")).failure().message
        'a reviewing state entered with no guardrail trip to review'
    """
    check = _pending(memory)
    if check is None:
        return Failure(Fault("a reviewing state entered with no guardrail trip to review"))
    return perform(AskHuman(review_request(memory, check)), memory)


def receive_review(
    memory: AgentMemory, outcome: ApprovalDecision
) -> Result[tuple[Reviewed, AgentMemory] | Perform[ApprovalDecision, AgentMemory], Fault]:
    """Record the decision on the trip and go back to the guarding state.

    Example:
        >>> from agentsm_fn.agents.guardrails import OnTrip, Trip
        >>> trip = Trip(guardrail="own", stage="input", on_trip=OnTrip.ASK_HUMAN, reason="r", message="")
        >>> m = AgentMemory.new("t").evolve(guardrail_checks=[GuardrailCheck(
        ...     guardrail="own", stage="input", at=0, trip=trip)])
        >>> event, after = receive_review(m, Rejected("not yours")).unwrap()
        >>> event.name, after.guardrail_checks[-1].review, after.guardrail_checks[-1].note
        ('GuardrailReviewed', False, 'not yours')
    """
    check = _pending(memory)
    if check is None:
        return Failure(Fault("a reviewing state received a decision with no guardrail trip to review"))
    match outcome:
        case Rejected(reason=reason):
            reviewed = LOG.reviewed(memory, False, reason or "rejected")
        case Modified(arguments=arguments):
            reviewed = _modified(memory, check, arguments)
        case _:
            reviewed = LOG.reviewed(memory, True, "approved")
    return emit(Event.GuardrailReviewed, reviewed)


def _modified(memory: AgentMemory, check: GuardrailCheck, arguments: JsonObject) -> AgentMemory:
    """Apply a modification to the one call under review, or reject: it cannot be applied elsewhere."""
    calls = turn_calls(memory)
    if check.stage in (INPUT, OUTPUT) or len(calls) != 1:
        note = f"rejected: modified arguments cannot be applied to a review of {_under_review(check, calls)}"
        return LOG.reviewed(memory, False, note)
    call = attrs.evolve(calls[0], arguments=arguments)
    changed = (
        memory.evolve(pending_tool_calls=(call,))
        if memory.pending_tool_calls
        else memory.evolve(current_tool_call=call)
    )
    return LOG.reviewed(changed, True, f"approved with modified arguments {call.arguments_json}")


def _under_review(check: GuardrailCheck, calls: tuple[ToolCall, ...]) -> str:
    if check.stage in (INPUT, OUTPUT):
        return f"the {check.stage}"
    return f"{len(calls)} tool calls"
