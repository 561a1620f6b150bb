"""Guardrails in the ReAct agent: three guarding states, what they check, and what a trip leaves.

Stages and their subjects (each a guarding state, :func:`~agentsm_fn.agents.guardrails.guarding`):

* ``input`` (GuardingInput, after Idle): the task, which is each new user message of a thread
  (passed, a thread's earlier turns over their budget are compressed next: ``ThreadTooLong``);
* ``tool_call`` (GuardingToolCalls, after a tool-calling reply): the turn's calls, as one
  subject; a pure check of one :class:`~agentsm_fn.llm.ToolCall` trips when it trips on any
  call (:func:`each_call`), an LLM guardrail judges the turn (one call per line);
* ``output`` (GuardingOutput, after the answer): the result (the text, or the typed value).

A state runs its machine's guardrails (code: :class:`ReactGuardrails`) and then those the
memory holds (data: ``AgentMemory.guardrails``, LLM guardrails made from instructions), so the
built-in :data:`~agentsm_fn.agents.react.REACT_MACHINE` runs an agent's LLM guardrails and
``react_machine(result, guardrails)`` adds the pure ones. Idle and Planning route through a
guarding state only when the machine or the memory has guardrails of its stage. A trip:

* refuses: the task or the answer ends the run in Refused (``final_answer`` is the refusal
  message; a withheld typed result is cleared), the turn's tool calls are observed as
  ``ERROR: GuardrailRefused: <message>`` (the model reads it; the run goes on);
* asks a human: the stage's reviewing state (:mod:`agentsm_fn.agents.react.reviewing`);
* stops: ``error`` says why, the run ends in Error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Generic, TypeVar, cast

import attrs

from agentsm_fn.agents.guardrails import (
    GuardLog,
    Guardrail,
    LlmCheck,
    OnTrip,
    Trip,
    from_spec,
    guarding,
)
from agentsm_fn.agents.output.result_type import ResultT, ResultType
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ReactToolResult
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.handlers import Handler
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmOutcome, LlmReply

__all__ = [
    "INPUT",
    "LOG",
    "OUTPUT",
    "STAGES",
    "TOOL_CALL",
    "ReactGuardrails",
    "each_call",
    "guarding_handlers",
    "turn_calls",
]

INPUT, TOOL_CALL, OUTPUT = "input", "tool_call", "output"
STAGES = (INPUT, TOOL_CALL, OUTPUT)
"""The ReAct agent's guardrail stages, in the order a run meets them."""

T = TypeVar("T")

LOG: GuardLog[AgentMemory] = GuardLog(
    checks=lambda memory: memory.guardrail_checks,
    with_checks=lambda memory, checks: memory.evolve(guardrail_checks=checks),
    visit=lambda memory: memory.step,
)
"""Where a ReAct memory keeps its checks (``guardrail_checks``); a visit is a step."""


def each_call(g: Guardrail[ToolCall]) -> Guardrail[tuple[ToolCall, ...]]:
    """A tool call's guardrail over a turn: it trips on the first call it trips on (named in the reason).

    An LLM guardrail made from instructions judges the whole turn; another LLM check is a
    programmer error (``TypeError``): build it with ``llm_guardrail``.

    Example:
        >>> from agentsm_fn.agents.guardrails import guardrail
        >>> no_rm = each_call(guardrail("no-rm", lambda c: "deletes files" if c.name == "rm" else None))
        >>> no_rm.check((ToolCall("c1", "ls", {}), ToolCall("c2", "rm", {})))
        'rm (c2): deletes files'
    """
    check = g.check
    if isinstance(check, LlmCheck):
        if g.spec is None:
            raise TypeError(
                f"tool-call guardrail {g.name}: an LLM check of tool calls is made by llm_guardrail"
            )
        return from_spec(g.spec)

    @functools.wraps(check)
    def over_turn(calls: tuple[ToolCall, ...]) -> str | None:
        for call in calls:
            reason = check(call)
            if reason is not None:
                return f"{call.name} ({call.id}): {reason}"
        return None

    return Guardrail(name=g.name, check=over_turn, on_trip=g.on_trip, message=g.message)


@attrs.frozen(kw_only=True)
class ReactGuardrails(Generic[ResultT]):
    """The guardrails a ReAct machine runs as code, by stage (the output's check the result's type).

    Example:
        >>> from agentsm_fn.agents.guardrails import guardrail
        >>> guards = ReactGuardrails[str](input=(guardrail("short", lambda t: None),))
        >>> sorted(guards.stages), guards.count(INPUT)
        (['input'], 1)
    """

    input: tuple[Guardrail[str], ...] = ()
    tool_calls: tuple[Guardrail[tuple[ToolCall, ...]], ...] = ()
    output: tuple[Guardrail[ResultT], ...] = ()

    @property
    def stages(self) -> frozenset[str]:
        """The stages with at least one guardrail."""
        return frozenset(
            s for s, g in zip(STAGES, (self.input, self.tool_calls, self.output), strict=True) if g
        )

    def count(self, stage: str) -> int:
        """How many guardrails the stage has."""
        return len({INPUT: self.input, TOOL_CALL: self.tool_calls, OUTPUT: self.output}[stage])


def _held(stage: str) -> Callable[[AgentMemory], tuple[Guardrail[object], ...]]:
    def held(memory: AgentMemory) -> tuple[Guardrail[object], ...]:
        return tuple(from_spec(spec) for spec in memory.guardrails if spec.stage == stage)

    return held


def turn_calls(memory: AgentMemory) -> tuple[ToolCall, ...]:
    """The calls of the turn being guarded: a parallel batch, or the one call.

    Example:
        >>> turn_calls(AgentMemory.new("t").evolve(current_tool_call=ToolCall("c1", "ls", {})))[0].name
        'ls'
    """
    if memory.pending_tool_calls:
        return memory.pending_tool_calls
    return () if memory.current_tool_call is None else (memory.current_tool_call,)


def _refused_calls(memory: AgentMemory, trip: Trip) -> AgentMemory:
    calls = turn_calls(memory)
    if memory.pending_tool_calls:
        results = [ReactToolResult.failure(c.id, c.name, "GuardrailRefused", trip.message) for c in calls]
        return memory.evolve(parallel_results=tuple(results))
    return memory.evolve(last_observation=f"ERROR: GuardrailRefused: {trip.message}")


def _tripped(stage: str) -> Callable[[AgentMemory, Trip, OnTrip], AgentMemory]:
    def tripped(memory: AgentMemory, trip: Trip, action: OnTrip) -> AgentMemory:
        if action is OnTrip.ASK_HUMAN:
            return memory
        if stage == TOOL_CALL:
            return (
                _refused_calls(memory, trip)
                if action is OnTrip.REFUSE
                else memory.evolve(error=trip.describe())
            )
        refusal = trip.message if action is OnTrip.REFUSE else None
        error = trip.describe() if action is OnTrip.STOP else memory.error
        return memory.evolve(final_answer=refusal, result=None, error=error)

    return tripped


def _spent(memory: AgentMemory) -> str | None:
    """Why no more LLM calls may be made (Planning's budget checks), or None."""
    if memory.budget is not None:
        spent = memory.budget.exhausted_by(memory.total_usage)
        if spent is not None:
            return f"token budget exceeded: {spent}"
    thread = memory.config.thread
    if thread.total is not None:
        spent = thread.spent(memory.conversation.usage + memory.total_usage)
        if spent is not None:
            return f"token budget exceeded: {spent}"
    return None


def _spend(memory: AgentMemory, outcome: LlmOutcome) -> AgentMemory:
    if isinstance(outcome, LlmReply):
        return memory.evolve(total_usage=memory.total_usage + outcome.usage)
    return memory


def _after_input(memory: AgentMemory) -> Event:
    over = memory.conversation.over(memory.config.thread.context)
    return Event.ThreadTooLong if over else Event.InputAllowed


def _next_tools(memory: AgentMemory) -> Event:
    if memory.pending_approval is not None:
        return Event.HumanApprovalRequired
    return Event.LlmParallelToolCalls if memory.pending_tool_calls else Event.LlmToolCall


def _answer(result: ResultType[T] | None) -> Callable[[AgentMemory], tuple[T, ...]]:
    def answer(memory: AgentMemory) -> tuple[T, ...]:
        if memory.output is None:
            return (cast(T, memory.final_answer or ""),)
        if result is None or result.spec is None:  # the built-in machine: the value as memory keeps it
            return (cast(T, memory.result),)
        return (result.value_of(memory.result),)

    return answer


def _task(memory: AgentMemory) -> tuple[str, ...]:
    return (memory.task,)


def _turn(memory: AgentMemory) -> tuple[tuple[ToolCall, ...], ...]:
    return (turn_calls(memory),)


def guarding_handlers(
    guards: ReactGuardrails[T], result: ResultType[T] | None = None
) -> dict[State, Handler[Event, AgentMemory]]:
    """The three guarding states' handlers: ``guards`` (code), then the memory's guardrails (data).

    Example:
        >>> handlers = guarding_handlers(ReactGuardrails[str]())
        >>> sorted(s.name for s in handlers), handlers[State.GuardingInput]
        (['GuardingInput', 'GuardingOutput', 'GuardingToolCalls'], Guarding(input: ))
    """
    refused, ask, stopped = Event.GuardrailRefused, Event.GuardrailEscalated, Event.GuardrailStopped
    task = guarding(
        INPUT,
        guards.input,
        subjects=_task,
        log=LOG,
        passed=_after_input,
        passes=(Event.InputAllowed, Event.ThreadTooLong),
        refused=refused,
        ask_human=ask,
        stopped=stopped,
        on_trip=_tripped(INPUT),
        held=_held(INPUT),
        gate=_spent,
        spend=_spend,
    )
    tools = guarding(
        TOOL_CALL,
        guards.tool_calls,
        subjects=_turn,
        log=LOG,
        passed=_next_tools,
        passes=(Event.LlmToolCall, Event.LlmParallelToolCalls, Event.HumanApprovalRequired),
        refused=refused,
        ask_human=ask,
        stopped=stopped,
        on_trip=_tripped(TOOL_CALL),
        held=_held(TOOL_CALL),
        gate=_spent,
        spend=_spend,
    )
    answer = guarding(
        OUTPUT,
        guards.output,
        subjects=_answer(result),
        log=LOG,
        passed=Event.OutputAllowed,
        refused=refused,
        ask_human=ask,
        stopped=stopped,
        on_trip=_tripped(OUTPUT),
        held=_held(OUTPUT),
        gate=_spent,
        spend=_spend,
    )
    return {State.GuardingInput: task, State.GuardingToolCalls: tools, State.GuardingOutput: answer}
