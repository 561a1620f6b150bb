"""What a run on Temporal receives when an activity gives no outcome (durable runs' failure rule).

A raising performer of an effect that is not retry-safe gets one attempt, and its
failure goes along the state's failure route; a retry-safe one is attempted again
with the same idempotency key; a failure nobody routes ends the run with its effect
still pending; an attempt that runs past its timeout is a TIMED_OUT failure.
"""

from __future__ import annotations

import threading
from pathlib import Path

from temporalio.client import Client

from agentsm_fn import EffectFailure, Performers, RunFailed, Status
from agentsm_fn.core.failures import EffectFailed
from agentsm_fn.shell import effect_key
from agentsm_fn.temporal import EffectOptions, TemporalMachine, machine_worker, start_run
from tests.temporal.helpers import queue
from tests.temporal.machines import ORDERS, Charge, Ev, Order, Ship, St

FAST = EffectOptions(timeout=10.0, attempts=3, backoff=0.05, max_backoff=0.05)


def orders(**options: EffectOptions) -> TemporalMachine[St, Ev, Order]:
    table = {Charge: options.get("charge", FAST), Ship: options.get("ship", FAST)}
    return TemporalMachine(machine=ORDERS, options=table)


async def test_a_raising_charge_is_tried_once_and_cancels_the_order(client: Client, tmp_path: Path) -> None:
    keys: list[str] = []

    def decline(effect: Charge) -> str:
        keys.append(str(effect_key()))
        raise ValueError("card declined")

    task_queue, spec = queue(), orders()
    performers = Performers().on(Charge, decline).on(Ship, lambda e: "parcel")
    async with machine_worker(client, task_queue, [spec], performers):
        run = await start_run(
            client, spec, Order(order_id="f1", amount=9), run_id=f"f1-{task_queue}", task_queue=task_queue
        )
        finished = (await run.result()).unwrap()
    assert finished.state is St.CANCELLED and finished.memory.log == ("started",)
    assert keys == [f"f1-{task_queue}:0"]  # not retry-safe: one attempt
    failure = finished.journal.outcomes[-1]
    assert isinstance(failure, EffectFailure)
    assert failure.kind.name == "RAISED" and failure.detail == "ValueError: card declined"


async def test_a_retry_safe_effect_is_attempted_again_with_the_same_key(client: Client) -> None:
    keys: list[str] = []

    def flaky(effect: Ship) -> str:
        keys.append(str(effect_key()))
        if len(keys) < 3:
            raise ConnectionError("warehouse busy")
        return "parcel f2"

    task_queue, spec = queue(), orders()
    performers = Performers().on(Charge, lambda e: "receipt").on(Ship, flaky)
    async with machine_worker(client, task_queue, [spec], performers):
        run = await start_run(
            client, spec, Order(order_id="f2", amount=9), run_id=f"f2-{task_queue}", task_queue=task_queue
        )
        finished = (await run.result()).unwrap()
    assert finished.state is St.DONE and finished.memory.log == ("started", "receipt", "parcel f2")
    assert keys == [f"f2-{task_queue}:1"] * 3


async def test_a_failure_nobody_routes_ends_the_run_with_the_effect_pending(client: Client) -> None:
    def broken(effect: Ship) -> str:
        raise ConnectionError("warehouse gone")

    task_queue, spec = queue(), orders(ship=EffectOptions(timeout=10.0, attempts=2, backoff=0.05))
    performers = Performers().on(Charge, lambda e: "receipt").on(Ship, broken)
    async with machine_worker(client, task_queue, [spec], performers):
        run = await start_run(
            client, spec, Order(order_id="f3", amount=9), run_id=f"f3-{task_queue}", task_queue=task_queue
        )
        failed = (await run.result()).failure()
    assert isinstance(failed, RunFailed) and isinstance(failed.reason, EffectFailed)
    assert "ConnectionError: warehouse gone" in failed.describe()
    assert failed.snapshot.status is Status.AWAITING and failed.snapshot.pending == Ship("f3")


async def test_an_attempt_past_its_timeout_is_a_timed_out_failure(client: Client) -> None:
    released = threading.Event()

    def slow(effect: Charge) -> str:
        released.wait(30)  # longer than the activity's timeout; released at the end of the test
        return "late"

    task_queue, spec = queue(), orders(charge=EffectOptions(timeout=1.0))
    performers = Performers().on(Charge, slow).on(Ship, lambda e: "parcel")
    try:
        async with machine_worker(client, task_queue, [spec], performers):
            run = await start_run(
                client, spec, Order(order_id="f4", amount=9), run_id=f"f4-{task_queue}", task_queue=task_queue
            )
            finished = (await run.result()).unwrap()
    finally:
        released.set()
    assert finished.state is St.CANCELLED
    failure = finished.journal.outcomes[-1]
    assert isinstance(failure, EffectFailure) and failure.kind.name == "TIMED_OUT"
