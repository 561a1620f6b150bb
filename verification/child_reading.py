"""What the verifier reads of a delegating state: its child machine and where each of its outcomes goes.

A delegating state's handler (:class:`~agentsm_fn.teams.Delegating`, made by ``delegate(...)``)
names the child's program and machine, and maps each terminal state of the child to a parent
event (``ends``), and the child's failure and cancellation to events of their own. A fanning-out
state's (:class:`~agentsm_fn.teams.FanningOut`, made by ``fan_out(...)``) gathers its children into
one outcome: every child finished (any terminal) or some did not. A plan-and-execute agent's
EXECUTE (:class:`~agentsm_fn.agents.plan_execute.ExecutingSteps`) runs each of its step agents as a
delegation of its own. :func:`read_children` reads them into :class:`ChildInfo` values, kept in the
state's :class:`~verification.states.StateInfo`;
:mod:`verification.checks_children` judges it (SM016), :mod:`verification.composition` follows it
into the child (SM017, SM018).
"""

from __future__ import annotations

import enum
from typing import Literal, TypeVar, cast

import attrs

from agentsm_fn.agents.plan_execute.stepping import ExecutingSteps, StepChild
from agentsm_fn.core.handlers import Handler
from agentsm_fn.core.machine import Machine
from agentsm_fn.teams import Delegating, FanningOut
from verification.findings import Location
from verification.locate import function_location

__all__ = ["ChildInfo", "ChildRoute", "SeenMachine", "read_child", "read_children"]

EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

SeenMachine = Machine[enum.Enum, enum.Enum, object]
"""A machine seen through its bounds: the verifier reads only its enums and handlers, never memory."""


@attrs.frozen(kw_only=True)
class ChildRoute:
    """One outcome a delegating state can receive and the event it emits for it (None: none).

    ``terminals`` are the child's terminal states this outcome stands for: one for a delegation's
    ``ends`` entry, all of them for a fan-out's "every child finished", none for a failure or a
    cancellation (which can come at any time).

    Example:
        >>> ChildRoute(outcome="terminal REFUSED", event=None, terminals=("REFUSED",)).event is None
        True
    """

    outcome: str
    event: str | None
    terminals: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class ChildInfo:
    """A delegating state's child: its program, its machine, and the route of every outcome it can end with.

    Example:
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> info = ChildInfo(kind="delegate", program="pkg.child:RUN", machine=ONE_STEP,
        ...                  routes=(ChildRoute(outcome="failed", event="BROKE"),))
        >>> info.program, info.routes[0].terminals
        ('pkg.child:RUN', ())
    """

    kind: Literal["delegate", "fan_out", "step"]
    program: str
    machine: SeenMachine = attrs.field(eq=False, repr=False)
    routes: tuple[ChildRoute, ...]
    location: Location | None = None


def _name(value: object) -> str | None:
    if value is None:
        return None
    return value.name if isinstance(value, enum.Enum) else repr(value)


def _terminals(machine: SeenMachine) -> tuple[str, ...]:
    return tuple(s.name for s in machine.states if s in machine.terminals)


def _located(handler: Handler[EventT, MemoryT]) -> Location | None:
    found = [loc for loc in (function_location(f) for f in handler.functions) if loc]
    return found[0] if found else None


def read_child(handler: Handler[EventT, MemoryT]) -> ChildInfo | None:
    """The child of a delegating or fanning-out state's handler (None for any other handler).

    Every terminal of the child is listed, mapped or not (an unmapped one has no event), then
    the failure and the cancellation; a fan-out lists "every child finished" and "some did not".

    Example:
        >>> import enum
        >>> from agentsm_fn.teams import delegate
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> class Ev(enum.Enum):
        ...     DONE = 1
        ...     BROKE = 2
        >>> h = delegate(program="pkg.child:RUN", child=ONE_STEP, start=lambda m: m,
        ...              ends={}, failed=Ev.BROKE, cancelled=Ev.BROKE, merge=lambda m, o: m)
        >>> [(r.outcome, r.event) for r in read_child(h).routes]
        [('terminal B', None), ('failed', 'BROKE'), ('cancelled', 'BROKE')]
    """
    if isinstance(handler, Delegating):
        child = cast(SeenMachine, handler.child)
        ends = {_name(k): _name(v) for k, v in handler.ends.items()}
        routes = [
            ChildRoute(outcome=f"terminal {t}", event=ends.get(t), terminals=(t,)) for t in _terminals(child)
        ]
        routes.append(ChildRoute(outcome="failed", event=_name(handler.failed)))
        routes.append(ChildRoute(outcome="cancelled", event=_name(handler.cancelled)))
        kind: Literal["delegate", "fan_out"] = "delegate"
    elif isinstance(handler, FanningOut):
        child = cast(SeenMachine, handler.child)
        routes = [
            ChildRoute(
                outcome="every child finished",
                event=_name(handler.all_finished),
                terminals=_terminals(child),
            ),
            ChildRoute(outcome="some child failed or was cancelled", event=_name(handler.some_failed)),
        ]
        kind = "fan_out"
    else:
        return None
    return ChildInfo(
        kind=kind, program=handler.program, machine=child, routes=tuple(routes), location=_located(handler)
    )


def _step(handler: Handler[EventT, MemoryT], step: StepChild) -> ChildInfo:
    child = cast(SeenMachine, step.child)
    ends = {_name(k): _name(v) for k, v in step.ends.items()}
    routes = [
        ChildRoute(outcome=f"terminal {t}", event=ends.get(t), terminals=(t,)) for t in _terminals(child)
    ]
    routes.append(ChildRoute(outcome="failed", event=_name(step.failed)))
    routes.append(ChildRoute(outcome="cancelled", event=_name(step.cancelled)))
    return ChildInfo(
        kind="step", program=step.program, machine=child, routes=tuple(routes), location=_located(handler)
    )


def read_children(handler: Handler[EventT, MemoryT]) -> tuple[ChildInfo, ...]:
    """Every child a state's handler runs: a delegation's or fan-out's one, or each step agent of EXECUTE.

    Example:
        >>> from agentsm_fn.agents.plan_execute import (
        ...     PLAN_EXECUTE_MACHINE, State, StepAgent, plan_execute_machine, step_child)
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> agent = StepAgent(name="one", description="One step", program="pkg.child:RUN")
        >>> machine = plan_execute_machine(steps=[step_child(agent, ONE_STEP)])
        >>> (info,) = read_children(machine.handlers[State.EXECUTE])
        >>> info.kind, [(r.outcome, r.event) for r in info.routes][0]
        ('step', ('terminal B', 'TOOL_CALLS_PRESENT'))
    """
    if isinstance(handler, ExecutingSteps):
        return tuple(_step(handler, step) for step in handler.children)
    one = read_child(handler)
    return () if one is None else (one,)
