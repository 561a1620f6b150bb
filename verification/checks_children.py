"""SM016: every outcome a delegated child can end with has somewhere to go in its parent.

A delegating state (``delegate(...)``, :mod:`agentsm_fn.teams`) resumes with the child's
outcome: finished in one of its terminal states, failed, or cancelled. Each must map to a parent
event (``ends``, ``failed``, ``cancelled``) that has a row from the delegating state; a
fanning-out state's two gathered outcomes (every child finished, some did not) likewise. SM016
reports each outcome that does not: the parent would stop with a ``HandlerFaulted`` (no event) or
an ``InvalidTransition`` (no row) when the child ends that way. The finding names the parent
machine, the state, the child's program and the outcome; SM008 leaves these events to SM016.
"""

from __future__ import annotations

import attrs

from verification.analysis import Analysis
from verification.child_reading import ChildInfo, ChildRoute
from verification.findings import PropertyViolation

__all__ = ["check_children"]


def _finding(
    machine: str, state: str, child: ChildInfo, route: ChildRoute, routed: set[str]
) -> PropertyViolation | None:
    verb = _VERB[child.kind]
    head = f"{machine}: {state} {verb} {child.program}"
    argument = _ARGUMENT[child.kind][route.outcome.split(" ")[0]]
    # A terminal is named as the composed team graph names it (program:STATE), never as a parent state.
    states = (
        (state, f"{child.program}:{route.terminals[0]}")
        if child.kind != "fan_out" and route.terminals
        else (state,)
    )
    if route.event is None:
        return PropertyViolation(
            code="SM016",
            message=f"{head}, whose outcome '{route.outcome}' maps to no event of {machine}: "
            "the parent cannot go on when the child ends that way",
            states=states,
            location=child.location,
            hint=f"map it in {_BUILDER[child.kind]}(..., {argument}=...) for {state} and add its row",
        )
    if route.event in routed:
        return None
    return PropertyViolation(
        code="SM016",
        message=f"{head}, whose outcome '{route.outcome}' emits {route.event}, but the table has no row "
        f"({state}, {route.event}): the parent cannot go on when the child ends that way",
        states=states,
        events=(route.event,),
        location=child.location,
        hint=f"add a row ({state}, {route.event}) -> <the state that handles it>",
    )


_VERB = {"delegate": "delegates to", "fan_out": "fans out to", "step": "gives a plan step to"}
_BUILDER = {"delegate": "delegate", "fan_out": "fan_out", "step": "StepChild"}
_ARGUMENT = {
    "delegate": {"terminal": "ends", "failed": "failed", "cancelled": "cancelled"},
    "step": {"terminal": "ends", "failed": "failed", "cancelled": "cancelled"},
    "fan_out": {"every": "all_finished", "some": "some_failed"},
}


def check_children(a: Analysis) -> list[PropertyViolation]:
    """SM016 over every delegating and fanning-out state of ``a``'s machine.

    Example:
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> from verification._examples import DELEGATING  # WAITING delegates to ONE_STEP, ends={}
        >>> [(v.code, v.states) for v in check_children(analyse(graph_of(DELEGATING)))]
        [('SM016', ('WAITING', 'pkg.child:RUN:B'))]
    """
    found: list[PropertyViolation] = []
    machine = a.model.name or "<unnamed>"
    for state in a.model.states:
        if state.terminal:
            continue
        routed = {row.event for row in a.rows_from.get(state.name, ())}
        for child in state.children:
            for route in child.routes:
                finding = _finding(machine, state.name, child, route, routed)
                if finding is not None and not finding.location:
                    finding = attrs.evolve(finding, location=state.location)
                if finding is not None:
                    found.append(finding)
    return found
