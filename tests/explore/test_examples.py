"""The durable orders and triage examples, explored to exhaustion; a planted bug in a copy of each is found.

Each counterexample is the shortest run that breaks the rule, replays with the engine
(``run_case`` raises the same violation), and its pasted pytest text runs and fails.
"""

from __future__ import annotations

import importlib

import pytest

from verification import verify
from verification.explore import explore
from verification.kit import RunViolation, run_case

orders = importlib.import_module("explore_orders")
triage = importlib.import_module("examples.property_testing.explore_triage")
planted = importlib.import_module("tests.explore.planted")


def pasted(code: str) -> None:
    """Run a pasted test: define it in a fresh namespace and call it."""
    namespace: dict[str, object] = {}
    exec(compile(code, "<pasted>", "exec"), namespace)
    test = namespace["test_explored_counterexample"]
    assert callable(test)
    test()


def test_every_run_of_the_durable_orders_keeps_its_rules() -> None:
    found = orders.explore_orders()
    assert found.ok and found.exhausted, found.summary()
    assert (found.states, found.edges, found.depth) == (56, 106, 4)


def test_every_run_of_the_triage_workflow_keeps_its_rules() -> None:
    found = triage.explore_triage()
    assert found.ok and found.exhausted, found.summary()
    assert found.states > 1_000 and found.depth == 9


def test_an_approval_limit_typo_is_found_with_the_shortest_run_and_a_test_to_paste() -> None:
    assert verify(planted.ORDERS_WITH_A_TYPO).ok  # the graph is sound: only exploration sees the bug
    found = explore(planted.ORDERS_WITH_A_TYPO, orders.STARTS, orders.OUTCOMES, properties=orders.PROPERTIES)
    bad = found.counterexample
    assert bad is not None and bad.reproduced and bad.kind == "property"
    assert "no charge above 1,000 without the manager's yes" in bad.message
    assert [(p.source, p.event) for p in bad.path] == [
        ("PRICING", "PRICED"),
        ("STOCKING", "IN_STOCK"),
        ("CHARGING", "CHARGED"),
    ]
    assert bad.case.outcomes[0] == 1_001
    with pytest.raises(RunViolation, match="without the manager's yes"):
        run_case(planted.ORDERS_WITH_A_TYPO, bad.case, properties=orders.PROPERTIES)
    code = bad.as_test("tests.explore.planted:ORDERS_WITH_A_TYPO", properties="explore_orders:PROPERTIES")
    with pytest.raises(RunViolation, match="without the manager's yes"):
        pasted(code)


def test_urgent_tickets_sent_to_work_are_found_from_the_outage_ticket() -> None:
    found = explore(
        planted.TRIAGE_WORKING_URGENT, triage.STARTS, invariants=triage.RULES, properties=triage.PROPERTIES
    )
    bad = found.counterexample
    assert bad is not None and bad.reproduced, found.summary()
    assert "urgent tickets are never worked on" in bad.message
    assert [p.event for p in bad.path] == ["ACCEPTED", "CLASSIFIED", "ASSIGNED"]
    assert "outage" in bad.case.memory.text
    with pytest.raises(RunViolation, match="urgent tickets are never worked on"):
        pasted(
            bad.as_test(
                "tests.explore.planted:TRIAGE_WORKING_URGENT",
                invariants="examples.property_testing.test_triage:RULES",
            )
        )


def test_the_counterexample_reads_as_the_kit_prints_a_run() -> None:
    found = explore(planted.ORDERS_WITH_A_TYPO, orders.STARTS, orders.OUTCOMES, properties=orders.PROPERTIES)
    bad = found.counterexample
    assert bad is not None
    text = bad.render()
    assert text.splitlines()[0].startswith("[property] run property")
    assert "1. PRICING --PRICED--> STOCKING  <= 1001" in text
    assert "exhausted: no" in found.summary()
