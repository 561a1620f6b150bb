"""Where guardrails enter a ReAct run: Idle and Planning's routes, the safety cap, the trace's words.

* :func:`starting` is Idle's handler: ``CheckInput`` when the input is guarded (by the
  machine's guardrails or the memory's), else ``Start``;
* :func:`guarded_receive` wraps Planning's receive half: a tool-calling reply goes to
  GuardingToolCalls (``CheckToolCalls``) and an answer (a valid result) to GuardingOutput
  (``CheckOutput``) when their stage is guarded;
* :func:`guarded_transitions` is what guardrails add to the safety cap: a guarding state per
  guarded stage (per step for tool calls) and two transitions per review (a reviewing state and back);
* :func:`narrate_guard` is the trace's line for guardrail rows: the guardrails that passed, or
  the one that tripped, its action and its reason, or a human's review.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, TypeAlias

from returns.result import Result, Success

from agentsm_fn.agents.guardrails import OnTrip
from agentsm_fn.agents.react.guards import INPUT, LOG, OUTPUT, STAGES, TOOL_CALL
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.planning import Decided, Receive
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit
from agentsm_fn.llm.replies import LlmOutcome

__all__ = [
    "CALLED",
    "Planned",
    "Routed",
    "Started",
    "guarded_receive",
    "guarded_transitions",
    "guards_stage",
    "narrate_guard",
    "starting",
]

CALLED = frozenset({Event.LlmToolCall, Event.LlmParallelToolCalls, Event.HumanApprovalRequired})
"""Planning's tool-calling events: GuardingToolCalls passes a turn on with the same one."""


def guards_stage(memory: AgentMemory, stage: str) -> bool:
    """Whether ``memory`` holds a guardrail of ``stage``.

    Example:
        >>> guards_stage(AgentMemory.new("t"), INPUT)
        False
    """
    return any(spec.stage == stage for spec in memory.guardrails)


Started: TypeAlias = Result[
    tuple[Literal[Event.Start, Event.ThreadTooLong, Event.CheckInput], AgentMemory], Fault
]
"""What Idle emits: ``CheckInput`` when the input is guarded, else ``ThreadTooLong`` or ``Start``."""


def starting(stages: frozenset[str]) -> Callable[[AgentMemory], Started]:
    """Idle's handler: ``CheckInput`` when the machine (``stages``) or the memory guards the input.

    Example:
        >>> starting(frozenset({INPUT}))(AgentMemory.new("t")).unwrap()[0].name
        'CheckInput'
    """

    def idle(memory: AgentMemory) -> Started:
        if INPUT in stages or guards_stage(memory, INPUT):
            return emit(Event.CheckInput, memory)
        if memory.conversation.over(memory.config.thread.context):
            return emit(Event.ThreadTooLong, memory)
        return emit(Event.Start, memory)

    return idle


Planned: TypeAlias = Literal[Decided, Event.CheckToolCalls, Event.CheckOutput]
"""What Planning's receive half emits when guardrails may follow it."""

Routed: TypeAlias = Result[tuple[Planned, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]


def guarded_receive(receive: Receive, stages: frozenset[str]) -> Callable[[AgentMemory, LlmOutcome], Routed]:
    """Planning's ``receive`` with its tool calls and answer sent to their guarding states when guarded.

    Example:
        >>> from agentsm_fn.agents.react.planning import receive_plan
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> receive = guarded_receive(receive_plan, frozenset({OUTPUT}))
        >>> receive(AgentMemory.new("t"), LlmReply(content="The answer is four, clearly.")).unwrap()[0].name
        'CheckOutput'
    """

    def guarded(memory: AgentMemory, outcome: LlmOutcome) -> Routed:
        decided = receive(memory, outcome)
        match decided:
            case Success((event, after)) if event in CALLED:
                if TOOL_CALL in stages or guards_stage(after, TOOL_CALL):
                    return emit(Event.CheckToolCalls, after)
            case Success((Event.LlmFinalAnswer, after)):
                if OUTPUT in stages or guards_stage(after, OUTPUT):
                    return emit(Event.CheckOutput, after)
        return decided

    guarded.__qualname__ = guarded.__name__ = f"guarded[{receive.__qualname__}]"
    return guarded


def guarded_transitions(memory: AgentMemory, counts: Mapping[str, int]) -> int:
    """The transitions guardrails add to a run's worst case (``counts``: the machine's guardrails by stage).

    Example:
        >>> from agentsm_fn.agents.react.config import AgentConfig
        >>> memory = AgentMemory.new("t").with_config(AgentConfig(max_steps=3))
        >>> guarded_transitions(memory, {}), guarded_transitions(memory, {INPUT: 1, TOOL_CALL: 2})
        (0, 18)
    """
    held = {stage: counts.get(stage, 0) for stage in STAGES}
    for spec in memory.guardrails:
        held[spec.stage] = held.get(spec.stage, 0) + 1
    extra = sum(1 + 2 * held[stage] for stage in (INPUT, OUTPUT) if held[stage])
    if held[TOOL_CALL]:
        extra += max(memory.config.max_steps, 0) * (1 + 2 * held[TOOL_CALL])
    return extra


_GUARDING = {State.GuardingInput: INPUT, State.GuardingToolCalls: TOOL_CALL, State.GuardingOutput: OUTPUT}
_TRIPS = {
    Event.GuardrailRefused: OnTrip.REFUSE,
    Event.GuardrailEscalated: OnTrip.ASK_HUMAN,
    Event.GuardrailStopped: OnTrip.STOP,
}


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def narrate_guard(state: State, event: Event, memory: AgentMemory) -> str | None:
    """The trace line of a guardrail row (a guarding state's, or a reviewing state's), else None.

    Example:
        >>> from agentsm_fn.agents.guardrails import GuardrailCheck, Trip
        >>> trip = Trip(guardrail="own", stage="input", on_trip=OnTrip.REFUSE, reason="ACME", message="No.")
        >>> m = AgentMemory.new("t").evolve(guardrail_checks=[
        ...     GuardrailCheck(guardrail="pii", stage="input", at=0),
        ...     GuardrailCheck(guardrail="own", stage="input", at=0, trip=trip)])
        >>> narrate_guard(State.GuardingInput, Event.GuardrailRefused, m)
        "step=0 guardrail=own stage=input action=refuse reason='ACME'"
        >>> narrate_guard(State.Idle, Event.Start, m) is None
        True
    """
    m = memory
    if state is State.ReviewingInput or state is State.ReviewingToolCalls or state is State.ReviewingOutput:
        last = m.guardrail_checks[-1] if m.guardrail_checks else None
        if last is None:
            return f"step={m.step}"
        review = {True: "approved", False: "rejected", None: "none"}[last.review]
        return f"step={m.step} guardrail={last.guardrail} review={review} note={_short(last.note)!r}"
    stage = _GUARDING.get(state)
    if stage is None:
        return None
    action = _TRIPS.get(event)
    if action is not None:
        last = LOG.last_trip(m)
        if last is not None and last.trip is not None:
            # A rejected review refuses: the action taken, whatever the guardrail's own was.
            said = f"action={action.value} reason={_short(last.trip.reason)!r}"
            return f"step={m.step} guardrail={last.guardrail} stage={stage} {said}"
    passed = [c.guardrail for c in m.guardrail_checks if c.stage == stage and c.at == m.step]
    return f"step={m.step} checked=" + ",".join(dict.fromkeys(passed))
