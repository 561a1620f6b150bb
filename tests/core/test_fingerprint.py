"""One machine fingerprint for the durable store, Temporal and OpenTelemetry, stable across releases.

The fixed digests below are the values stores written before the fingerprint moved to
the core hold: if one changes, every stored run of that machine would be refused as
"machine changed". Change them only with a handler, state, event or row of the machine.
"""

from __future__ import annotations

import agentsm_fn
import agentsm_fn.core
import agentsm_fn.durable
from agentsm_fn import machine_fingerprint, machine_fingerprint_text
from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
from agentsm_fn.agents.react import REACT_MACHINE
from tests.core.sample import S, sample_machine
from tests.durable.machines import ORDERS

STORED = {
    # The ReAct machine gained rows in November 2026: Correcting (OutputInvalid, typed results),
    # Idle -ThreadTooLong-> Reflecting (threads), and the guarding, reviewing and Refused states of
    # guardrails. Runs stored by the machine before them are reported as "machine changed" by the
    # changed-machine check, as they must be. Then Acting -HandedOff-> Done (a handoff: the receiving
    # agent's answer is the run's, issue 29), a new event and row: its runs stored before it are refused too.
    "react": "5ce73efe6405d718a50ee9a311a809b3ca73d780562c6a81067e13715405d7ff",
    # The plan-and-execute machine gained CORRECTING in November 2026 (typed results: an answer
    # that is not a valid result goes back to the model); its runs stored before are "machine changed".
    "plan_execute": "523d526542f73055296a8e5c4b9b280530890205f1079370eab7bbe64828bddd",
    "orders": "bc752ec51858251655ff7f2944e2126ac8d0c22278821999d83c814f5f30d22d",
}


def test_the_fingerprints_of_stores_written_before_still_match() -> None:
    assert machine_fingerprint(REACT_MACHINE) == STORED["react"]
    assert machine_fingerprint(PLAN_EXECUTE_MACHINE) == STORED["plan_execute"]
    assert machine_fingerprint(ORDERS) == STORED["orders"]


def test_every_package_hands_out_the_same_function() -> None:
    assert (
        agentsm_fn.durable.machine_fingerprint is agentsm_fn.core.machine_fingerprint is machine_fingerprint
    )
    assert agentsm_fn.durable.machine_fingerprint_text is machine_fingerprint_text


def test_a_changed_table_changes_the_fingerprint_and_the_same_graph_keeps_it() -> None:
    machine = sample_machine()
    assert machine_fingerprint(machine) == machine_fingerprint(sample_machine())
    changed = machine.extend(rows={(S.WORK, next(iter(machine.events))): S.IDLE})
    assert machine_fingerprint(changed) != machine_fingerprint(machine)
    assert "row WORK" in machine_fingerprint_text(changed)
