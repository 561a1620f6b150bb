"""Structural properties: one initial state, reachability, absorbing terminals, no deadlock, no orphans.

* SM001 the initial state is a declared state;
* SM002 every declared state is reachable (unreachable ones listed, one violation);
* SM003 terminal states have no outgoing rows;
* SM004 no reachable non-terminal state lacks outgoing rows;
* SM006 no row names an undeclared state or event, and no state a row or the
  initial state leads to lacks a handler.
"""

from __future__ import annotations

from verification.analysis import Analysis
from verification.findings import Edge, PropertyViolation, Witness
from verification.model import Row

__all__ = ["check_structure"]


def _initial(a: Analysis) -> list[PropertyViolation]:
    m = a.model
    if m.initial_declared:
        return []
    return [
        PropertyViolation(
            code="SM001",
            message=f"initial state {m.initial} is not a declared state",
            states=(m.initial,),
            hint="pass one member of the state enum as initial=",
        )
    ]


def _reachability(a: Analysis) -> list[PropertyViolation]:
    lost = {s.name for s in a.model.states} - a.reachable
    if not lost or not a.model.initial_declared:
        return []
    names = a.sorted_states(lost)
    first = a.model.by_name[names[0]]
    return [
        PropertyViolation(
            code="SM002",
            message=f"{len(names)} state(s) unreachable from {a.model.initial}: {', '.join(names)}",
            states=names,
            location=first.location,
            hint="add a row that leads to each listed state, or remove the state",
        )
    ]


def _absorbing(a: Analysis) -> list[PropertyViolation]:
    found: list[PropertyViolation] = []
    for state in a.model.states:
        if not state.terminal:
            continue
        rows = a.rows_from.get(state.name, ())
        if rows:
            found.append(
                PropertyViolation(
                    code="SM003",
                    message=f"terminal state {state.name} has {len(rows)} outgoing row(s), "
                    "which can never fire (a run stops on arrival)",
                    states=(state.name,),
                    events=tuple(r.event for r in rows),
                    location=rows[0].location,
                    hint=f"remove the rows from {state.name}, or make it non-terminal",
                )
            )
    return found


def _deadlock(a: Analysis) -> list[PropertyViolation]:
    sources = {r.source for r in a.model.rows}
    found: list[PropertyViolation] = []
    for state in a.model.states:
        if state.terminal or state.name in sources or state.name not in a.reachable:
            continue
        found.append(
            PropertyViolation(
                code="SM004",
                message=f"non-terminal state {state.name} has no outgoing row: a run that gets there "
                "can never continue",
                states=(state.name,),
                witness=a.witness_to({state.name}),
                location=state.location,
                hint=f"add rows from {state.name} for the events it emits, or list it in terminals=",
            )
        )
    return found


def _orphans(a: Analysis) -> list[PropertyViolation]:
    found: list[PropertyViolation] = []
    for row in a.model.rows:
        parts = [
            f"{what} {name}"
            for what, name, ok in (
                ("source", row.source, row.source_declared),
                ("event", row.event, row.event_declared),
                ("target", row.target, row.target_declared),
            )
            if not ok
        ]
        if parts:
            found.append(
                PropertyViolation(
                    code="SM006",
                    message=f"row ({row.source}, {row.event}) -> {row.target} names undeclared "
                    + " and ".join(parts),
                    states=(row.source, row.target),
                    events=(row.event,),
                    witness=_through_row(a, row),
                    location=row.location,
                    hint="use members of the machine's state and event enums in the table",
                )
            )
    mentioned = {r.source for r in a.model.rows} | {r.target for r in a.model.rows} | {a.model.initial}
    for state in a.model.states:
        if state.terminal or state.has_handler or state.name not in mentioned:
            continue
        rows = tuple(dict.fromkeys((*a.rows_from.get(state.name, ()), *a.rows_to.get(state.name, ()))))
        found.append(
            PropertyViolation(
                code="SM006",
                message=f"non-terminal state {state.name} has no handler, yet "
                + ("it is the initial state" if not rows else f"{len(rows)} row(s) use it"),
                states=(state.name,),
                events=tuple(dict.fromkeys(r.event for r in rows)),
                witness=a.witness_to({state.name}),
                location=rows[0].location if rows else None,
                hint=f"add a handler for {state.name} to handlers=, or list it in terminals=",
            )
        )
    return found


def _through_row(a: Analysis, row: Row) -> Witness | None:
    path = a.path_from_initial({row.source})
    if path is None:
        return None
    return Witness(start=a.model.initial, stem=(*path, Edge(row.source, row.event, row.target)))


def check_structure(a: Analysis) -> list[PropertyViolation]:
    """SM001, SM002, SM003, SM004 and SM006 over ``a``.

    Example:
        >>> import enum
        >>> from agentsm_fn import Machine
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = Machine(states=S, events=E, initial=S.A, terminals=frozenset({S.B}),
        ...             table={(S.A, E.GO): S.B}, handlers={})
        >>> [v.code for v in check_structure(analyse(graph_of(m)))]
        ['SM006']
    """
    return [*_initial(a), *_reachability(a), *_absorbing(a), *_deadlock(a), *_orphans(a)]
