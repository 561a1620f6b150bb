"""One meaning of an effect's failure, checked end to end on the order machine of docs/effect-failures.md.

The documentation's own code is executed; the machine it defines is then verified (SM010 and
SM007 pass), run under ``run``, ``arun`` and ``resume_run`` with a raising and a hanging payment
performer (the order is cancelled), replayed from its journal (the same run, no IO), and
property-tested with the kit (the failure row is taken).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import threading
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import strategies as st
from returns.result import Failure

from agentsm_fn import (
    SUSPEND,
    EffectFailed,
    EffectFailure,
    FailureKind,
    Performers,
    Shell,
    Status,
    StepClock,
    arun,
    begin,
    replay,
    resume_run,
    run,
)
from verification import verify
from verification.kit import (
    Outcomes,
    check_machine,
    covering_cases,
    has_failure_route,
    kit_settings,
    run_case,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "effect-failures.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _printed(block: str) -> list[str]:
    return [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# ")]


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    """The documentation's namespace after running every block, checking what each says it prints."""
    namespace: dict[str, Any] = {"__name__": "effect_failures_doc"}
    for block in _blocks():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), namespace)
        assert out.getvalue().splitlines() == _printed(block)
    return namespace


def _raising(doc: dict[str, Any]) -> Shell:
    def card_network_down(effect: object) -> str:
        raise ConnectionError("card network down")

    return Shell(Performers().on(doc["Charge"], card_network_down), StepClock())


def test_the_verifier_proves_the_failure_route(doc: dict[str, Any]) -> None:
    report = verify(doc["ORDERS"])
    assert report.ok, report.violations
    verdicts = {v.code: v.status for v in report.verdicts}
    assert verdicts["SM010"] == verdicts["SM007"] == "proved"
    without_route = doc["ORDERS"].extend(remove_rows=[(doc["S"].CHARGING, doc["E"].ERROR)])
    assert "SM010" in {v.code for v in verify(without_route).violations}


def test_a_raising_performer_cancels_the_order_under_run_and_arun_and_replay_reproduces_it(
    doc: dict[str, Any],
) -> None:
    orders, order = doc["ORDERS"], doc["Order"](amount=30)
    for result in (run(orders, order, _raising(doc)), asyncio.run(arun(orders, order, _raising(doc)))):
        done = result.unwrap()
        assert done.state is doc["S"].CANCELLED and done.memory == order
        failure = done.journal.outcomes[-1]
        assert failure == EffectFailure(
            kind=FailureKind.RAISED, effect="Charge", detail="ConnectionError: card network down"
        )
        assert [e.event for e in done.trace][-1] == "ERROR"
        assert replay(orders, begin(orders, order), done.journal).unwrap() == done


def test_async_and_resumed_failures_take_the_same_route(doc: dict[str, Any]) -> None:
    orders, order, charge = doc["ORDERS"], doc["Order"](amount=30), doc["Charge"]

    async def declined(effect: object) -> str:
        raise PermissionError("card declined")

    async_shell = Shell(Performers().on_async(charge, declined), StepClock())
    done = asyncio.run(arun(orders, order, async_shell)).unwrap()
    assert done.state is doc["S"].CANCELLED
    assert done.journal.outcomes[-1] == EffectFailure.raised("Charge", PermissionError("card declined"))
    paused = run(orders, order, Shell(Performers().on(charge, lambda e: SUSPEND), StepClock())).unwrap()
    unknown = EffectFailure.unknown("Charge")  # what a recovery delivers for a payment in flight at a crash
    resumed = resume_run(orders, paused, unknown, Shell(clock=StepClock())).unwrap()
    assert resumed.state is doc["S"].CANCELLED and resumed.journal.outcomes == (unknown,)


def test_a_hanging_performer_times_out_under_run_and_arun(doc: dict[str, Any]) -> None:
    orders, order, charge = doc["ORDERS"], doc["Order"](amount=30), doc["Charge"]
    never = threading.Event()
    sync_shell = Shell(Performers().on(charge, lambda e: "late" if never.wait() else "", timeout=0.05))

    async def hang(effect: object) -> str:
        await asyncio.Event().wait()
        return "late"

    async_shell = Shell(Performers().on_async(charge, hang, timeout=0.05))
    for result in (
        run(orders, order, sync_shell),
        asyncio.run(arun(orders, order, sync_shell)),
        asyncio.run(arun(orders, order, async_shell)),
    ):
        done = result.unwrap()
        assert done.state is doc["S"].CANCELLED
        assert done.journal.outcomes[-1] == EffectFailure.timed_out("Charge", 0.05)


def test_without_a_route_the_run_stops_awaiting_and_resumes_once_fixed(doc: dict[str, Any]) -> None:
    orders, order, charge = doc["ORDERS"], doc["Order"](amount=30), doc["Charge"]
    bare = orders.extend(
        handlers={doc["S"].CHARGING: attrs.evolve(orders.handlers[doc["S"].CHARGING], on_failure=None)}
    )
    stopped = run(bare, order, _raising(doc))
    assert isinstance(stopped, Failure)
    reason, snapshot = stopped.failure().reason, stopped.failure().snapshot
    assert reason == EffectFailed(
        doc["S"].CHARGING, "Charge", "performer raised ConnectionError: card network down"
    )
    assert (
        snapshot.status is Status.AWAITING and snapshot.journal.outcomes == ()
    )  # the failure is not journaled
    paid = run(bare, snapshot, Shell(Performers().on(charge, lambda e: "receipt-1"), StepClock())).unwrap()
    assert paid.state is doc["S"].CHARGED and paid.memory.receipt == "receipt-1"


def test_the_kit_takes_the_failure_row(doc: dict[str, Any]) -> None:
    orders, charge, states = doc["ORDERS"], doc["Charge"], doc["S"]
    assert has_failure_route(orders, states.CHARGING, charge(1))
    orders_of = st.builds(doc["Order"], amount=st.integers(1, 500))
    report = check_machine(orders, orders_of, settings=kit_settings("ci", max_examples=60))
    assert report.missing == () and report.rows[("CHARGING", "ERROR", "CANCELLED")] > 0
    receipts = Outcomes().on(charge, lambda e: st.text(), examples=lambda e: ("receipt-1",))
    suite = covering_cases(orders, [doc["Order"](amount=5)], receipts)
    assert suite.unscripted == () and ("CHARGING", "ERROR", "CANCELLED") in {
        (s.name, e.name, t.name) for s, e, t in suite.rows
    }
    for case in suite.cases:
        run_case(orders, case)
    without_failures = check_machine(
        orders,
        orders_of,
        settings=kit_settings("ci", max_examples=60),
        failures=False,
        require_all_transitions=False,
    )
    assert without_failures.missing == (("CHARGING", "ERROR", "CANCELLED"),)
