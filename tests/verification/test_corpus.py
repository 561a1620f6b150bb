"""The self-test corpus: every planted defect is rejected with exactly its code, clean machines pass."""

from __future__ import annotations

import pytest

from tests.verification.corpus import cleans, defects
from verification import verify

DEFECTS = defects()
CLEANS = cleans()


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_planted_defect_is_rejected_with_exactly_its_code(name: str) -> None:
    machine, policies = DEFECTS[name]
    report = verify(machine, policies=policies)
    assert {v.code for v in report.violations} == {name.split(maxsplit=1)[0]}, report.violations
    assert not report.ok


@pytest.mark.parametrize("name", sorted(CLEANS))
def test_clean_machine_is_accepted(name: str) -> None:
    machine, policies = CLEANS[name]
    report = verify(machine, policies=policies)
    assert report.violations == ()
    assert report.ok and report.sound and report.strongly_sound


def test_every_property_code_has_a_planted_defect() -> None:
    from verification.findings import MACHINE_CODES

    # SM014 (LangGraph interrupts) is planted in tests/verification/test_foreign_langgraph.py, SM017
    # (team termination) in tests/verification/test_teams.py as a handoff cycle: on one machine, a
    # cycle through its child is that machine's own SM005 as well.
    assert {name.split()[0] for name in DEFECTS} == MACHINE_CODES - {"SM017"}
