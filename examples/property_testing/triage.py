"""A support-ticket triage workflow: a small machine of pure handlers.

RECEIVED -> CLASSIFYING -> ROUTING -> WORKING -> (RESOLVED | back to ROUTING)
An empty ticket is CLOSED at once; an urgent one, or one that ran out of attempts,
is ESCALATED to a human. Whether the customer accepts each attempted fix is part
of the ticket (``answers``), so every handler stays a pure function.
"""

from __future__ import annotations

import enum
from typing import Literal

import attrs
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn import Fault, define_machine, emit


class S(enum.Enum):
    RECEIVED = "Received"
    CLASSIFYING = "Classifying"
    ROUTING = "Routing"
    WORKING = "Working"
    RESOLVED = "Resolved"
    ESCALATED = "Escalated"
    CLOSED = "Closed"


class E(enum.Enum):
    ACCEPTED = "accepted"
    EMPTY = "empty"
    CLASSIFIED = "classified"
    ASSIGNED = "assigned"
    URGENT = "urgent"
    GAVE_UP = "gave_up"
    SOLVED = "solved"
    REOPENED = "reopened"


@attrs.frozen(kw_only=True)
class Ticket:
    text: str
    answers: tuple[bool, ...] = ()  # the customer's verdict on each attempted fix
    max_attempts: int = 3
    priority: int = 0  # 0 unset, 1 urgent, 2 normal, 3 low
    team: str = ""
    attempts: int = 0
    notes: tuple[str, ...] = ()


def received(t: Ticket) -> Result[tuple[Literal[E.ACCEPTED, E.EMPTY], Ticket], Fault]:
    if not t.text.strip():
        return emit(E.EMPTY, attrs.evolve(t, notes=(*t.notes, "closed: empty ticket")))
    return emit(E.ACCEPTED, t)


def classifying(t: Ticket) -> Result[tuple[Literal[E.CLASSIFIED], Ticket], Fault]:
    text = t.text.lower()
    priority = 1 if "outage" in text else 2 if "bug" in text else 3
    team = "billing" if "invoice" in text or "refund" in text else "tech"
    return emit(E.CLASSIFIED, attrs.evolve(t, priority=priority, team=team))


def routing(t: Ticket) -> Result[tuple[Literal[E.ASSIGNED, E.URGENT, E.GAVE_UP], Ticket], Fault]:
    if t.priority == 1:
        return emit(E.URGENT, attrs.evolve(t, notes=(*t.notes, "escalated: urgent")))
    if t.attempts >= t.max_attempts:
        return emit(E.GAVE_UP, attrs.evolve(t, notes=(*t.notes, "escalated: out of attempts")))
    return emit(E.ASSIGNED, attrs.evolve(t, notes=(*t.notes, f"assigned to {t.team}")))


def working(t: Ticket) -> Result[tuple[Literal[E.SOLVED, E.REOPENED], Ticket], Fault]:
    accepted = t.attempts < len(t.answers) and t.answers[t.attempts]
    tried = attrs.evolve(t, attempts=t.attempts + 1)
    return emit(E.SOLVED, tried) if accepted else emit(E.REOPENED, tried)


TRIAGE = define_machine(
    name="triage",
    states=S,
    events=E,
    initial=S.RECEIVED,
    terminals={S.RESOLVED, S.ESCALATED, S.CLOSED},
    table={
        (S.RECEIVED, E.ACCEPTED): S.CLASSIFYING,
        (S.RECEIVED, E.EMPTY): S.CLOSED,
        (S.CLASSIFYING, E.CLASSIFIED): S.ROUTING,
        (S.ROUTING, E.ASSIGNED): S.WORKING,
        (S.ROUTING, E.URGENT): S.ESCALATED,
        (S.ROUTING, E.GAVE_UP): S.ESCALATED,
        (S.WORKING, E.SOLVED): S.RESOLVED,
        (S.WORKING, E.REOPENED): S.ROUTING,
    },
    handlers={S.RECEIVED: received, S.CLASSIFYING: classifying, S.ROUTING: routing, S.WORKING: working},
    budgeted={S.ROUTING},  # every visit spends an attempt, or leaves
)


def tickets() -> st.SearchStrategy[Ticket]:
    """New tickets, as they arrive."""
    texts = st.sampled_from(("", "  ", "Site outage!", "Bug in invoice", "refund please", "hello"))
    return st.builds(
        Ticket,
        text=texts | st.text(max_size=20),
        answers=st.lists(st.booleans(), max_size=4).map(tuple),
        max_attempts=st.integers(0, 3),
    )
