"""Every run of the triage workflow from every ticket within bounds, explored to exhaustion.

    agentsm-verify --explore examples.property_testing.triage:TRIAGE   # with [tool.agentsm_fn.explore]
    python -m examples.property_testing.explore_triage

The handlers are pure, so the runs differ only by their start: :func:`tickets_within`
lists every ticket of a few texts, every answer sequence up to a length, every
``max_attempts`` up to a bound. With the test's own invariants and three run properties.
"""

from __future__ import annotations

import itertools

from verification.explore import Exploration, explore
from verification.kit import RunProperty, at_most, never, only_after, took

from .test_triage import RULES
from .triage import TRIAGE, E, S, Ticket

TEXTS = ("", "Site outage!", "Bug in invoice", "refund please", "hello")


def tickets_within(answers: int, attempts: int) -> tuple[Ticket, ...]:
    """Every ticket of :data:`TEXTS`, up to ``answers`` answers, ``max_attempts`` up to ``attempts``."""
    verdicts = [tuple(a) for n in range(answers + 1) for a in itertools.product((False, True), repeat=n)]
    return tuple(
        Ticket(text=text, answers=verdict, max_attempts=most)
        for text in TEXTS
        for verdict in verdicts
        for most in range(attempts + 1)
    )


STARTS = tickets_within(answers=3, attempts=3)

PROPERTIES: tuple[RunProperty[S, Ticket], ...] = (
    at_most(lambda t: t.max_attempts, took(E.ASSIGNED), name="at most max_attempts assignments"),
    never(took(E.ASSIGNED), after=took(E.URGENT), name="no work after an escalation"),
    only_after(took(E.SOLVED), took(E.ASSIGNED), name="solved only after an assignment"),
)


def budget(ticket: Ticket) -> int:
    """Visits to ROUTING a run may make: one per attempt, and the last, which leaves."""
    return ticket.max_attempts + 1


def explore_triage(starts: tuple[Ticket, ...] = STARTS) -> Exploration[S, E, Ticket]:
    """Explore every run of the triage workflow from ``starts``."""
    return explore(TRIAGE, starts, invariants=RULES, properties=PROPERTIES, budget=budget)


if __name__ == "__main__":
    print(explore_triage().summary())
