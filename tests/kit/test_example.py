"""The user-facing example (examples/property_testing): it passes, and the kit catches bugs in it.

The example is imported by name at run time: ``examples`` is not a package, so a
static import would give mypy two names for the same file.
"""

from __future__ import annotations

import enum
import importlib

import pytest
from returns.result import Result

from agentsm_fn import Fault, emit, pure
from verification.kit import RunViolation, check_machine, kit_settings

triage = importlib.import_module("examples.property_testing.triage")
example = importlib.import_module("examples.property_testing.test_triage")
FAST = kit_settings("ci", max_examples=80, stateful_step_count=10)


def test_the_example_passes_at_full_coverage() -> None:
    report = example.check_triage()
    assert report.missing == ()
    assert "8/8 reachable rows" in report.summary()


def test_a_handler_that_does_not_spend_its_budget_breaks_the_step_bound() -> None:
    def working_forever(t: object) -> Result[tuple[enum.Enum, object], Fault]:
        return emit(triage.E.REOPENED, t)  # forgets to count the attempt: ROUTING never runs out

    buggy = triage.TRIAGE.extend(
        handlers={triage.S.WORKING: pure(working_forever, events={triage.E.SOLVED, triage.E.REOPENED})}
    )
    with pytest.raises(RunViolation) as caught:
        check_machine(
            buggy,
            triage.tickets(),
            invariants=example.RULES,
            budget=lambda t: t.max_attempts + 1,
            settings=FAST,
        )
    assert caught.value.kind == "step-bound"


def test_routing_an_urgent_ticket_to_work_is_caught_with_the_ticket_that_shows_it() -> None:
    def routing_urgent_to_work(t: object) -> Result[tuple[enum.Enum, object], Fault]:
        urgent = getattr(t, "priority", 0) == 1
        return emit(triage.E.ASSIGNED, t) if urgent else triage.routing(t)

    buggy = triage.TRIAGE.extend(
        handlers={triage.S.ROUTING: pure(routing_urgent_to_work, events=set(triage.E))}
    )
    with pytest.raises(RunViolation, match="urgent tickets are never worked on") as caught:
        check_machine(
            buggy, triage.tickets(), invariants=example.RULES, settings=FAST, require_all_transitions=False
        )
    assert [p.event for p in caught.value.path] == ["ACCEPTED", "CLASSIFIED", "ASSIGNED"]
    assert "outage" in str(caught.value).lower()
