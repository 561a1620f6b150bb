"""A worker is SIGKILLed in the middle of slow effects; a second worker takes every run over.

Worker 1 blocks in ``Ship`` (retry-safe) for four orders and in ``Charge`` (not
retry-safe) for a fifth; the test waits until every one of them has started, kills
worker 1 with SIGKILL and starts worker 2. Then: every run finishes; the four end with
the memory of an uninterrupted run; no Charge ran twice; each Ship was performed again
with the key it had the first time; the fifth order's Charge, whose outcome nobody
knows, reaches the machine as an UNKNOWN failure and the order is cancelled.
"""

from __future__ import annotations

import asyncio
import collections
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from agentsm_fn import Shell, run
from agentsm_fn.temporal import start_run
from tests.temporal.helpers import Workers, queue, wait_for
from tests.temporal.machines import Order, St, plain_performers
from tests.temporal.worker_process import SPEC

ORDERS_SHIPPED = ("o1", "o2", "o3", "o4")
IN_FLIGHT_CHARGE = "x1"


@pytest.fixture
def workers(temporal_target: str, tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(temporal_target, queue(), tmp_path)
    yield pool
    pool.stop()


async def test_a_second_worker_finishes_every_run_of_a_killed_one(client: Client, workers: Workers) -> None:
    directory = workers.directory
    slow = (*(f"Ship-{o}" for o in ORDERS_SHIPPED), f"Charge-{IN_FLIGHT_CHARGE}")
    first = workers.start(slow)
    runs = {
        order_id: await start_run(
            client, SPEC, Order(order_id=order_id, amount=10), run_id=order_id, task_queue=workers.task_queue
        )
        for order_id in (*ORDERS_SHIPPED, IN_FLIGHT_CHARGE)
    }
    wait_for([directory / f"started-{name}" for name in slow], first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    workers.start()
    async with asyncio.timeout(120):  # a guard against a hang, not a timing assertion
        results = {order_id: await r.result() for order_id, r in runs.items()}

    calls = collections.Counter((directory / "calls.log").read_text().splitlines())
    for order_id in ORDERS_SHIPPED:
        reference = run(SPEC.machine, Order(order_id=order_id, amount=10), Shell(plain_performers())).unwrap()
        finished = results[order_id].unwrap()
        assert finished.state is St.DONE and finished.memory == reference.memory
        assert calls[f"Charge {order_id}:0"] == 1  # not retry-safe: never performed again
        assert calls[f"Ship {order_id}:1"] == 2  # killed once, performed again with the same key
    assert calls[f"Charge {IN_FLIGHT_CHARGE}:0"] == 1
    assert sum(calls.values()) == len(ORDERS_SHIPPED) * 3 + 1
    cancelled = results[IN_FLIGHT_CHARGE].unwrap()
    assert cancelled.state is St.CANCELLED and cancelled.memory.log == ("started",)
