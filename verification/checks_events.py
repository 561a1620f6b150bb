"""Event properties: dead rows, event completeness, failure handling, readable events.

* SM007: no row whose event its source state can never emit (it can never fire). An
  effectful state's declared ``failure_event`` counts as emitted: the engine emits it
  when the state's effect fails and the effect does not turn the failure into an
  outcome of its own (docs/effect-failures.md), so its row is live;
* SM008: every event a state can emit has a row, so no invalid transition can
  happen at run time;
* SM010: every effectful state declares a failure event and has a row for it: the row
  the engine takes when the effect's performer raises or times out, its outcome is
  rejected, or it is unknown after a crash (without it such a run stops with
  ``EffectFailed``); or it declares the effect types it requests (``effects=``) and each
  turns its failures into an outcome of its own, as the handler's annotations agree
  (:mod:`verification.effect_types`);
* SM013: every handler's events can be read from its annotations or are declared,
  and name only members of the machine's event enum.

States whose events are unknown are reported by SM013 only; SM007 and SM008 then
assume every row of theirs can fire.
"""

from __future__ import annotations

from verification.analysis import Analysis
from verification.effect_types import DeclaredEffects
from verification.findings import PropertyViolation

__all__ = ["check_events"]


def _dead_rows(a: Analysis) -> list[PropertyViolation]:
    found: list[PropertyViolation] = []
    for state in a.model.states:
        emits = state.emits
        if state.terminal or not state.has_handler or emits is None:
            continue
        for row in a.rows_from.get(state.name, ()):
            if row.event_declared and row.target_declared and row.event not in emits:
                found.append(
                    PropertyViolation(
                        code="SM007",
                        message=f"row ({row.source}, {row.event}) -> {row.target} can never fire: "
                        f"{state.name} never emits {row.event} ({_said(state.reading.origin)})",
                        states=(row.source, row.target),
                        events=(row.event,),
                        location=row.location,
                        hint=f"remove the row, or let {state.name}'s handler emit {row.event} "
                        "(and add it to its return annotation)",
                    )
                )
    return found


def _said(origin: str) -> str:
    return "by its return annotation" if origin == "annotation" else "by its declared events"


def _completeness(a: Analysis) -> list[PropertyViolation]:
    found: list[PropertyViolation] = []
    for state in a.model.states:
        emits = state.emits
        if state.terminal or not state.has_handler or emits is None:
            continue
        routed = {r.event for r in a.rows_from.get(state.name, ())}
        # An effectful state's missing failure row is SM010's to report, a guardrail's trip SM015's,
        routed.add(state.failure_event or "")
        routed.update(g.event for g in state.guards if g.event is not None)
        for child in state.children:  # and a child's outcome SM016's
            routed.update(r.event for r in child.routes if r.event is not None)
        missing = tuple(e for e in a.model.events if e in emits and e not in routed)
        if missing:
            found.append(
                PropertyViolation(
                    code="SM008",
                    message=f"{state.name} can emit {', '.join(missing)} but the table has no row for "
                    f"{'it' if len(missing) == 1 else 'them'}: the run would fail with InvalidTransition",
                    states=(state.name,),
                    events=missing,
                    witness=a.witness_to({state.name}),
                    location=state.location,
                    hint="add rows "
                    + ", ".join(f"({state.name}, {e}) -> <target>" for e in missing)
                    + f", or stop {state.name}'s handler emitting them",
                )
            )
    return found


def _failure_handling(a: Analysis) -> list[PropertyViolation]:
    found: list[PropertyViolation] = []
    for state in a.model.states:
        if state.terminal or not state.effectful:
            continue
        failure, declared = state.failure_event, state.effects
        if failure is None and declared is not None and declared.stands:
            continue  # its effects turn their failures into outcomes: that is its failure route
        if failure is None:
            found.append(
                PropertyViolation(
                    code="SM010",
                    message=f"effectful state {state.name} declares no failure event, so a failed "
                    "effect (raised, timed out, rejected, unknown after a crash) stops the run with "
                    f"EffectFailed{_why_not_their_own(declared)}",
                    states=(state.name,),
                    location=state.location,
                    hint=f"pass failure_event=<Event> to effectful(...) for {state.name} and add a row "
                    f"({state.name}, <Event>) -> <recovery state>",
                )
            )
        elif not any(r.event == failure for r in a.rows_from.get(state.name, ())):
            found.append(
                PropertyViolation(
                    code="SM010",
                    message=f"effectful state {state.name} has no row for its failure event {failure}: "
                    "the engine emits it when an effect fails, and the run would stop with InvalidTransition",
                    states=(state.name,),
                    events=(failure,),
                    witness=a.witness_to({state.name}),
                    location=state.location,
                    hint=f"add a row ({state.name}, {failure}) -> <recovery state>",
                )
            )
    return found


def _why_not_their_own(declared: DeclaredEffects | None) -> str:
    if declared is None:
        return ""
    if declared.unhandled:
        return f" ({', '.join(declared.unhandled)} do(es) not turn failures into outcomes)"
    return f" (its declared effects disagree with its annotations: {'; '.join(declared.problems)})"


def _readable(a: Analysis) -> list[PropertyViolation]:
    found: list[PropertyViolation] = []
    for state in a.model.states:
        if state.terminal or not state.has_handler:
            continue
        reading = state.reading
        if reading.events is None:
            found.append(
                PropertyViolation(
                    code="SM013",
                    message=f"the events of {state.name} are unknown: {reading.problem}",
                    states=(state.name,),
                    location=state.location,
                    hint="annotate the handler's return type with Literal events, e.g. "
                    "-> Result[tuple[Literal[Ev.A, Ev.B], Mem], Fault], or declare them with "
                    "pure(fn, events={...}) / effectful(..., events={...})",
                )
            )
        if reading.foreign:
            found.append(
                PropertyViolation(
                    code="SM013",
                    message=f"{state.name}'s handler names events that are not members of the machine's "
                    f"event enum: {', '.join(reading.foreign)}",
                    states=(state.name,),
                    events=reading.foreign,
                    location=state.location,
                    hint="use members of the machine's event enum in the annotation or declaration",
                )
            )
    return found


def check_events(a: Analysis) -> list[PropertyViolation]:
    """SM007, SM008, SM010 and SM013 over ``a``.

    Example:
        >>> import enum
        >>> from agentsm_fn import define_machine, emit, pure
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        ...     STOP = 2
        >>> h = pure(lambda n: emit(E.GO, n), events={E.GO, E.STOP})
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.B},
        ...     table={(S.A, E.GO): S.B}, handlers={S.A: h})
        >>> [(v.code, v.events) for v in check_events(analyse(graph_of(m)))]
        [('SM008', ('STOP',))]
    """
    return [*_dead_rows(a), *_completeness(a), *_failure_handling(a), *_readable(a)]
