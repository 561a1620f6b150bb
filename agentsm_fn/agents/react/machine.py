"""``REACT_MACHINE``: the ReAct agent as a core :class:`Machine` (table, handlers, narrator, cap).

Handlers close over nothing: everything they read (config, tool definitions,
blacklist, budget, the result's schema) is in the frozen :class:`AgentMemory`; only
:func:`react_machine`'s Planning handler closes over a result type (its class and output
validators, which are code, not data). Planning (it consumes ``max_steps``) and Correcting
(it consumes ``max_output_retries``) are the budgeted states. The safety cap is
``CYCLE_LENGTH * max_steps + 3``: every cycle passes through Planning, which
increments ``step`` or leaves, and the longest cycle (Planning -> WaitingForHuman ->
Acting -> Observing -> Reflecting -> Planning) takes 5 transitions; add the way in
(Idle's Start, or its ThreadTooLong then Reflecting's ReflectDone when a thread's
earlier turns are compressed first) and the final move to Done or Error. The seed's
``max_steps * 3`` would fire before ``MaxSteps`` (with ``max_steps`` 2 the run needs 8
transitions).
"""

from __future__ import annotations

from typing import TypeVar, cast, overload

import attrs

from agentsm_fn.agents.output.result_type import TEXT, ResultType
from agentsm_fn.agents.react.acting import act, act_in_parallel, receive_act, receive_parallel
from agentsm_fn.agents.react.correcting import correct
from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.guard_routes import guarded_receive, guarded_transitions, narrate_guard, starting
from agentsm_fn.agents.react.guards import INPUT, STAGES, ReactGuardrails, guarding_handlers
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.observing import idle, observe
from agentsm_fn.agents.react.planning import plan, receive_plan, receiving
from agentsm_fn.agents.react.reflecting import receive_summary, reflect
from agentsm_fn.agents.react.reviewing import REVIEWING, ask_review, receive_review
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.agents.react.table import TRANSITIONS
from agentsm_fn.agents.react.waiting import ask_human, receive_decision
from agentsm_fn.core.handlers import effectful, pure
from agentsm_fn.core.machine import HandlerLike, Machine, define_machine
from agentsm_fn.llm.json import dumps

__all__ = [
    "CYCLE_LENGTH",
    "DEFAULT_HANDLERS",
    "REACT_MACHINE",
    "narrate_react",
    "react_machine",
    "safety_cap",
]

T = TypeVar("T")

CYCLE_LENGTH = 5
"""Transitions in the longest cycle through Planning."""


def safety_cap(memory: AgentMemory) -> int:
    """The most transitions a run from ``memory`` can take before MaxSteps must fire.

    Example:
        >>> safety_cap(AgentMemory.new("t"))
        78
    """
    return CYCLE_LENGTH * max(memory.config.max_steps, 0) + 3 + guarded_transitions(memory, {})


def _short(text: str | None, limit: int = 100) -> str:
    if text is None:
        return ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def narrate_react(state: State, event: Event, memory: AgentMemory) -> str:
    """The data string of a trace entry, from the state left, the event, and the new memory.

    Example:
        >>> narrate_react(State.Idle, Event.Start, AgentMemory.new("2+2"))
        "task='2+2' task_type='default' max_steps=15"
    """
    m = memory
    guarded = narrate_guard(state, event, m)
    if guarded is not None:
        return guarded
    # Plain identity tests (a trace line is narrated on every transition): the same cases, in the
    # same order, as a ``match state, event`` over the pairs would take.
    if state is State.Idle:
        line = f"task={m.task!r} task_type={m.task_type!r} max_steps={m.config.max_steps}"
        if event is Event.ThreadTooLong:
            return f"{line} thread_tokens={m.conversation.tokens()} over={m.config.thread.context}"
        return line
    if state is State.Planning:
        tool = (
            event is Event.LlmToolCall
            or event is Event.HumanApprovalRequired
            or event is Event.CheckToolCalls
        )
        if tool and m.current_tool_call and not m.pending_tool_calls:
            call = m.current_tool_call
            return f"step={m.step} tool={call.name} args={_short(dumps(call.arguments), 60)}"
        if event is Event.LlmParallelToolCalls or event is Event.CheckToolCalls:
            return f"step={m.step} tools=" + ",".join(c.name for c in m.pending_tool_calls)
        if event is Event.LlmFinalAnswer or event is Event.CheckOutput:
            return f"step={m.step} answer={_short(m.final_answer)!r}"
        if event is Event.LowConfidence:
            return f"step={m.step} confidence={m.confidence_score} retry={m.retry_count}"
        if event is Event.ToolBlacklisted:
            return f"step={m.step} blacklisted=" + ",".join(m.refused_tools)
        if event is Event.OutputInvalid and m.rejected_outputs:
            return f"step={m.step} problems={_short(m.rejected_outputs[-1].describe())!r}"
    if state is State.Correcting and event is Event.RetryOutput:
        return f"step={m.step} output_retries={m.output_retries}"
    if (
        event is Event.MaxSteps
        or event is Event.OutputRetriesExhausted
        or event is Event.BudgetExceeded
        or event is Event.FatalError
    ):
        return f"step={m.step} error={_short(m.error)!r}"
    if state is State.WaitingForHuman and m.pending_approval is not None:
        return f"step={m.step} decision={m.pending_approval.decision!r}"
    if state is State.Acting:
        return f"step={m.step} observation={_short(m.last_observation)!r}"
    if state is State.ParallelActing:
        return f"step={m.step} results={len(m.parallel_results)}"
    if state is State.Observing or state is State.Reflecting:
        thread = m.conversation
        kept = f" thread={len(thread.messages)} summarized={thread.summarized}" if thread.turns else ""
        return f"step={m.step} history={len(m.history)}{kept}"
    return f"step={m.step}"


DEFAULT_HANDLERS: dict[State, HandlerLike[Event, AgentMemory]] = {
    State.Idle: pure(idle),
    State.Planning: effectful(
        plan, guarded_receive(receive_plan, frozenset()), failure_event=Event.FatalError
    ),
    State.Acting: effectful(act, receive_act, failure_event=Event.ToolFailure),
    State.ParallelActing: effectful(act_in_parallel, receive_parallel, failure_event=Event.ToolFailure),
    State.WaitingForHuman: effectful(ask_human, receive_decision, failure_event=Event.HumanRejected),
    State.Observing: pure(observe),
    State.Reflecting: effectful(reflect, receive_summary, failure_event=Event.ReflectDone),
    State.Correcting: pure(correct),
    **guarding_handlers(ReactGuardrails[object]()),
    **dict.fromkeys(REVIEWING, effectful(ask_review, receive_review, effects={AskHuman})),
}
"""The seed's handlers, one per non-terminal state (Done and Error stop the run on arrival)."""

REACT_MACHINE: Machine[State, Event, AgentMemory] = define_machine(
    name="react",
    states=State,
    events=Event,
    initial=State.Idle,
    terminals={State.Done, State.Error, State.Refused},
    table=TRANSITIONS,
    handlers=DEFAULT_HANDLERS,
    budgeted={
        State.Planning,
        State.Correcting,
        State.GuardingInput,
        State.GuardingToolCalls,
        State.GuardingOutput,
    },
    safety_cap=safety_cap,
    narrate=narrate_react,
)
"""The ReAct agent machine (read by the verifier and the property kit)."""


@overload
def react_machine(
    result: ResultType[T], guardrails: ReactGuardrails[T] | None = None
) -> Machine[State, Event, AgentMemory]: ...


@overload
def react_machine(
    *, guardrails: ReactGuardrails[str] | None = None
) -> Machine[State, Event, AgentMemory]: ...


def react_machine(
    result: ResultType[T] | ResultType[str] = TEXT,
    guardrails: ReactGuardrails[T] | ReactGuardrails[str] | None = None,
) -> Machine[State, Event, AgentMemory]:
    """The ReAct machine reading replies as ``result`` (text by default), guarded by ``guardrails``.

    The table, and so everything the verifier proves, is :data:`REACT_MACHINE`'s; the
    fingerprint names the result type (Planning's receive half is ``receive_plan[Name]``)
    and the guardrails (their checks' names). Guardrails that are data (an
    ``llm_guardrail`` made from instructions) need no machine of their own: the memory holds
    them (``AgentBuilder`` puts each where it belongs).

    Example:
        >>> from agentsm_fn.agents.output import result_type
        >>> machine = react_machine(result_type({"type": "object"}, name="Ack"))
        >>> machine.table == REACT_MACHINE.table, machine.handlers[State.Planning]
        (True, Effectful(request=plan, receive=guarded[receive_plan[Ack]]))
        >>> from agentsm_fn.agents.guardrails import guardrail
        >>> short = guardrail("short", lambda text: "too long" if len(text) > 99 else None)
        >>> react_machine(guardrails=ReactGuardrails(input=(short,))).handlers[State.GuardingInput]
        Guarding(input: short)
    """
    # One result type for both (the overloads tie the guardrails' type to the result's).
    result_of = cast(ResultType[object], result)
    guards = ReactGuardrails[object]() if guardrails is None else cast(ReactGuardrails[object], guardrails)
    # Keyed by what the result type is made of, the spec by identity (a class's spec is made once):
    # hashing or comparing the spec's schema would walk it on every build. The guardrails are
    # values of functions (hashed by identity).
    key = (result_of.kind, id(result_of.spec), result_of.target, result_of.validators, guards)
    found = _TYPED.get(key)
    if found is not None and found[0] is result_of.spec:
        return found[1]
    machine = _made(result_of, guards)
    if len(_TYPED) >= 256:  # result types made on the fly (tests, generators) must not pile up
        _TYPED.clear()
    _TYPED[key] = (result_of.spec, machine)  # the spec is kept: its id is not reused while it is here
    return machine


def _made(result: ResultType[object], guards: ReactGuardrails[object]) -> Machine[State, Event, AgentMemory]:
    stages = guards.stages
    typed = result.spec is not None or bool(result.validators)
    receive = receiving(result) if typed else receive_plan
    handlers: dict[State, HandlerLike[Event, AgentMemory]] = {
        State.Planning: effectful(plan, guarded_receive(receive, stages), failure_event=Event.FatalError),
        **guarding_handlers(guards, result),
    }
    if INPUT in stages:
        handlers[State.Idle] = pure(starting(stages))
    machine = REACT_MACHINE.extend(handlers=handlers)
    if not stages:
        return machine
    counts = {stage: guards.count(stage) for stage in STAGES}

    def cap(memory: AgentMemory) -> int:
        return CYCLE_LENGTH * max(memory.config.max_steps, 0) + 3 + guarded_transitions(memory, counts)

    return attrs.evolve(machine, safety_cap=cap)


_TYPED: dict[tuple[object, ...], tuple[object, Machine[State, Event, AgentMemory]]] = {}
"""The machine of each result type and guardrails, made once (a builder asks on every build)."""
