"""Property-test the triage workflow with the kit: its invariants, at full transition coverage.

Run ``.venv/bin/pytest examples/property_testing``, or for the coverage summary
``.venv/bin/python -m examples.property_testing.test_triage``.
"""

from __future__ import annotations

from verification.kit import (
    CoverageReport,
    Invariant,
    append_only,
    check_machine,
    memory_invariant,
    only_changed_in,
    transition_invariant,
)

from .triage import TRIAGE, S, Ticket, tickets

RULES: list[Invariant[S, Ticket]] = [
    memory_invariant("priority is 0 (unset) to 3", lambda t: 0 <= t.priority <= 3),
    memory_invariant("attempts stay within max_attempts", lambda t: t.attempts <= t.max_attempts),
    only_changed_in("priority", lambda t: t.priority, {S.CLASSIFYING}),
    append_only("notes", lambda t: t.notes),
    transition_invariant(
        "urgent tickets are never worked on", lambda s: s.target is not S.WORKING or s.after.priority > 1
    ),
]


def check_triage() -> CoverageReport:
    return check_machine(TRIAGE, tickets(), invariants=RULES, budget=lambda t: t.max_attempts + 1)


def test_triage() -> None:
    assert check_triage().row_coverage == 1.0


if __name__ == "__main__":
    print(check_triage().summary())
