"""``PLAN_EXECUTE_MACHINE``: the seed's plan-and-execute FSM as one frozen, validated constant.

EXECUTE is budgeted (every visit consumes one of ``memory.max_iterations``), and so is
CORRECTING (a typed result's retries, each leading back to EXECUTE). The safety cap bounds
one run's transitions by the same budget: 4 before the loop, 4 per iteration, 1 to a terminal.
Each effectful state declares the event it emits when its effect fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar, cast, overload

from agentsm_fn.agents.output.result_type import TEXT, ResultType
from agentsm_fn.agents.plan_execute.correcting import correct_output
from agentsm_fn.agents.plan_execute.front import (
    DecideOut,
    decide_enter,
    decide_receive,
    intake_enter,
    intake_receive,
    plan_enter,
    plan_receive,
)
from agentsm_fn.agents.plan_execute.graph import TABLE, Event, State
from agentsm_fn.agents.plan_execute.loop import (
    ExecuteOut,
    LoopOut,
    execute_enter,
    execute_receive,
    loop_check_enter,
    loop_check_receive,
    observe_enter,
    observe_receive,
)
from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.agents.plan_execute.stepping import ExecutingSteps, StepChild
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.handlers import effectful, pure
from agentsm_fn.core.machine import HandlerLike, Machine, define_machine
from agentsm_fn.llm.replies import LlmOutcome

__all__ = ["PLAN_EXECUTE_MACHINE", "narrate_plan_execute", "plan_execute_machine", "transitions_cap"]

T = TypeVar("T")


def transitions_cap(mem: PlanExecuteMemory) -> int:
    """The most transitions a run from ``mem`` can take (the engine's safety cap).

    4 before the loop (DECIDE may go through CORRECTING), 4 per iteration (EXECUTE, OBSERVE,
    LOOP_CHECK, CORRECTING back to EXECUTE), 1 to a terminal.

    Example:
        >>> transitions_cap(PlanExecuteMemory(input="x", max_iterations=3))
        17
    """
    return 4 + 4 * mem.max_iterations + 1


def narrate_plan_execute(state: State, event: Event, mem: PlanExecuteMemory) -> str:
    """The trace's data column: the reason recorded in the FSM history.

    Example:
        >>> narrate_plan_execute(State.INTAKE, Event.NORMALIZED, PlanExecuteMemory(input="x"))
        ''
    """
    if mem.history and mem.history[-1].source is state and mem.history[-1].event is event:
        return mem.history[-1].reason[:200]
    return ""


PLAN_EXECUTE_MACHINE: Final[Machine[State, Event, PlanExecuteMemory]] = define_machine(
    name="plan_execute",
    states=State,
    events=Event,
    initial=State.INTAKE,
    terminals={State.FINALIZE, State.HALT},
    table=TABLE,
    handlers={
        State.INTAKE: effectful(intake_enter, intake_receive, failure_event=Event.NORMALIZED),
        State.PLAN: effectful(plan_enter, plan_receive, failure_event=Event.INVALID_PLAN),
        State.DECIDE: effectful(decide_enter, decide_receive, failure_event=Event.INVALID),
        State.EXECUTE: ExecutingSteps(effectful(execute_enter, execute_receive, failure_event=Event.ERROR)),
        State.OBSERVE: effectful(observe_enter, observe_receive, failure_event=Event.OBSERVED),
        State.LOOP_CHECK: effectful(loop_check_enter, loop_check_receive, failure_event=Event.VIOLATION),
        State.CORRECTING: pure(correct_output),
    },
    budgeted={State.EXECUTE, State.CORRECTING},
    safety_cap=transitions_cap,
    narrate=narrate_plan_execute,
)
"""The plan-and-execute agent: states, events, table, handlers, budget. Run it with the shell.

Example:
    >>> PLAN_EXECUTE_MACHINE.table[(State.LOOP_CHECK, Event.CONTINUE)], sorted(s.name for s in
    ...     PLAN_EXECUTE_MACHINE.budgeted)
    (<State.EXECUTE: 3>, ['CORRECTING', 'EXECUTE'])
"""


@overload
def plan_execute_machine(
    result: ResultType[T], *, steps: Sequence[StepChild] = ()
) -> Machine[State, Event, PlanExecuteMemory]: ...


@overload
def plan_execute_machine(*, steps: Sequence[StepChild] = ()) -> Machine[State, Event, PlanExecuteMemory]: ...


def plan_execute_machine(
    result: ResultType[T] | ResultType[str] = TEXT, *, steps: Sequence[StepChild] = ()
) -> Machine[State, Event, PlanExecuteMemory]:
    """The machine reading final answers as ``result`` (its class, then its output validators).

    The table, and so everything the verifier proves, is :data:`PLAN_EXECUTE_MACHINE`'s: only
    the handlers of the states that finish (DECIDE, EXECUTE, LOOP_CHECK) read the answer with
    the result type, and their names (what the fingerprint reads) carry the result's name.
    Text without output validators is :data:`PLAN_EXECUTE_MACHINE` itself (a memory's
    ``output`` schema alone is checked by it too). ``steps`` are the step agents a plan step may
    name (:func:`~agentsm_fn.agents.plan_execute.stepping.step_agent`): EXECUTE's handler carries
    them (same functions, so the same fingerprint), and the verifier reads them (SM016-SM018).

    Example:
        >>> from agentsm_fn.agents.output import result_type
        >>> machine = plan_execute_machine(result_type({"type": "object"}, name="Ack"))
        >>> machine.table == PLAN_EXECUTE_MACHINE.table, machine.handlers[State.EXECUTE]
        (True, Effectful(request=execute_enter, receive=execute_receive[Ack]))
        >>> plan_execute_machine() is PLAN_EXECUTE_MACHINE
        True
        >>> from agentsm_fn.agents.plan_execute.stepping import StepAgent, step_child, step_children
        >>> agent = StepAgent(name="research", description="Research", program="lab:RESEARCH")
        >>> [c.program for c in step_children(plan_execute_machine(steps=[step_child(agent, machine)]))]
        ['lab:RESEARCH']
    """
    base = _typed(cast(ResultType[object], result))
    if not steps:
        return base
    key = (id(base), tuple(id(step) for step in steps))
    found = _STEPPED.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], (base, *steps), strict=True)):
        return found[1]
    names = [step.agent.name for step in steps]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"step agents declared twice: {', '.join(twice)}")
    handler = base.handlers[State.EXECUTE]
    execute = handler.execute if isinstance(handler, ExecutingSteps) else handler
    machine = base.extend(handlers={State.EXECUTE: ExecutingSteps(execute, tuple(steps))})
    if len(_STEPPED) >= 256:  # agents made on the fly (tests, generators) must not pile up
        _STEPPED.clear()
    _STEPPED[key] = ((base, *steps), machine)
    return machine


def _typed(reading: ResultType[object]) -> Machine[State, Event, PlanExecuteMemory]:
    if reading.spec is None and not reading.validators:
        return PLAN_EXECUTE_MACHINE
    # Keyed as react_machine keys its own: the spec by identity, validators by their functions.
    key = (reading.kind, id(reading.spec), reading.target, reading.validators)
    found = _TYPED.get(key)
    if found is not None and found[0] is reading.spec:
        return found[1]
    machine = PLAN_EXECUTE_MACHINE.extend(handlers=_reading_handlers(reading))
    if len(_TYPED) >= 256:  # result types made on the fly (tests, generators) must not pile up
        _TYPED.clear()
    _TYPED[key] = (reading.spec, machine)
    return machine


def _reading_handlers(result: ResultType[object]) -> dict[State, HandlerLike[Event, PlanExecuteMemory]]:
    def decide_in(mem: PlanExecuteMemory) -> DecideOut:
        return decide_enter(mem, result)

    def decide_back(mem: PlanExecuteMemory, outcome: LlmOutcome) -> DecideOut:
        return decide_receive(mem, outcome, result)

    def execute_back(mem: PlanExecuteMemory, outcome: LlmOutcome) -> ExecuteOut:
        return execute_receive(mem, outcome, result)

    def loop_in(mem: PlanExecuteMemory) -> LoopOut:
        return loop_check_enter(mem, result)

    def loop_back(mem: PlanExecuteMemory, outcome: float | LlmOutcome | EffectFailure) -> LoopOut:
        return loop_check_receive(mem, outcome, result)

    for fn, name in (
        (decide_in, "decide_enter"),
        (decide_back, "decide_receive"),
        (execute_back, "execute_receive"),
        (loop_in, "loop_check_enter"),
        (loop_back, "loop_check_receive"),
    ):
        fn.__qualname__ = fn.__name__ = f"{name}[{result.name}]"
    return {
        State.DECIDE: effectful(decide_in, decide_back, failure_event=Event.INVALID),
        State.EXECUTE: ExecutingSteps(effectful(execute_enter, execute_back, failure_event=Event.ERROR)),
        State.LOOP_CHECK: effectful(loop_in, loop_back, failure_event=Event.VIOLATION),
    }


_TYPED: dict[tuple[object, ...], tuple[object, Machine[State, Event, PlanExecuteMemory]]] = {}
"""The machine of each result type, made once (an agent asks for it on every run)."""
_STEPPED: dict[tuple[object, ...], tuple[tuple[object, ...], Machine[State, Event, PlanExecuteMemory]]] = {}
"""The machine of each result type's machine and step agents (kept alive, so ids name them)."""
