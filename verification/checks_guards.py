"""SM015: every guardrail's trip has somewhere to go.

A guarding state (``guarding(...)``, :mod:`agentsm_fn.agents.guardrails`) emits one event per
action its guardrails' trips can take: refuse, ask a human, stop (and refuse when a human
rejects an ``ASK_HUMAN`` trip). SM015 reports a guardrail whose action has no event in its
state, or whose event has no row from it: a trip the run could not route (it would stop
with a ``HandlerFaulted`` or an ``InvalidTransition``). SM008 leaves those events to SM015,
which names the guardrail; the location is the guardrail's check where it can be known.
"""

from __future__ import annotations

import attrs

from agentsm_fn.agents.guardrails import HELD
from verification.analysis import Analysis
from verification.findings import PropertyViolation
from verification.guard_reading import GuardInfo

__all__ = ["check_guards"]


def _finding(state: str, guard: GuardInfo, routed: set[str]) -> PropertyViolation | None:
    named = "a guardrail its memory holds" if guard.guardrail == HELD else f"guardrail {guard.guardrail}"
    head = f"{named} ({guard.stage}) of {state}"
    if guard.event is None:
        return PropertyViolation(
            code="SM015",
            message=f"{head} can {_DOING[guard.action]}, but {state} has no event to {guard.action} with: "
            "the trip has nowhere to go",
            states=(state,),
            location=guard.location,
            hint=f"pass {_ARGUMENT[guard.action]}=<Event> to guarding(...) for {state} and add its row",
        )
    if guard.event in routed:
        return None
    return PropertyViolation(
        code="SM015",
        message=f"{head} trips with {guard.event} (to {_DOING[guard.action]}), but the table has no row "
        f"({state}, {guard.event}): the trip has nowhere to go",
        states=(state,),
        events=(guard.event,),
        location=guard.location,
        hint=f"add a row ({state}, {guard.event}) -> <a state that {_HANDLES[guard.action]}>",
    )


_DOING = {"refuse": "refuse", "ask_human": "ask a human", "stop": "stop the run"}
_ARGUMENT = {"refuse": "refused", "ask_human": "ask_human", "stop": "stopped"}
_HANDLES = {
    "refuse": "ends the run with the refusal (or refuses the call)",
    "ask_human": "asks a human",
    "stop": "is the run's failure state",
}


def check_guards(a: Analysis) -> list[PropertyViolation]:
    """SM015 over every guarding state of ``a``'s machine.

    Example:
        >>> import enum
        >>> from agentsm_fn import define_machine
        >>> from agentsm_fn.agents.guardrails import GuardLog, OnTrip, guarding, guardrail
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> class S(enum.Enum):
        ...     CHECKING = 1
        ...     DONE = 2
        >>> class E(enum.Enum):
        ...     PASSED = 1
        ...     STOPPED = 2
        >>> log = GuardLog(checks=lambda m: (), with_checks=lambda m, c: m, visit=lambda m: 0)
        >>> pii = guardrail("pii", lambda text: None, on_trip=OnTrip.STOP)
        >>> h = guarding("output", [pii], subjects=lambda m: (m,), log=log,
        ...              passed=E.PASSED, stopped=E.STOPPED)
        >>> m = define_machine(states=S, events=E, initial=S.CHECKING, terminals={S.DONE},
        ...     table={(S.CHECKING, E.PASSED): S.DONE}, handlers={S.CHECKING: h})
        >>> [(v.code, v.events) for v in check_guards(analyse(graph_of(m)))]
        [('SM015', ('STOPPED',))]
    """
    found: list[PropertyViolation] = []
    for state in a.model.states:
        if state.terminal or not state.guards:
            continue
        routed = {row.event for row in a.rows_from.get(state.name, ())}
        for guard in state.guards:
            finding = _finding(state.name, guard, routed)
            if finding is not None:
                found.append(finding if finding.location else attrs.evolve(finding, location=state.location))
    return found
