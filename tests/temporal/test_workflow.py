"""Any machine on a real Temporal server: the fold as a workflow, effects as activities."""

from __future__ import annotations

import asyncio
import types
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from agentsm_fn import Performers, RunFailed, Shell, Snapshot, Status, run
from agentsm_fn.core.failures import EffectFailed
from agentsm_fn.durable import AnswerRefused
from agentsm_fn.temporal import (
    RunCancelled,
    TemporalMachine,
    machine_worker,
    start_run,
)
from tests.temporal.helpers import queue, wait_for_pending
from tests.temporal.machines import ORDERS, Charge, Order, St, order_performers, plain_performers

ROOT = Path(__file__).resolve().parents[2]


def run_locally(order: Order) -> Snapshot[St, Order]:
    return run(ORDERS, order, Shell(plain_performers())).unwrap()


async def test_a_run_on_temporal_ends_with_the_memory_of_a_local_run(client: Client, tmp_path: Path) -> None:
    task_queue = queue()
    async with machine_worker(client, task_queue, [ORDERS], order_performers(tmp_path)):
        handle = await start_run(
            client, ORDERS, Order(order_id="o1", amount=5), run_id="o1", task_queue=task_queue
        )
        finished = (await handle.result()).unwrap()
    local = run(ORDERS, Order(order_id="o1", amount=5), Shell(plain_performers())).unwrap()
    assert finished.status is Status.FINISHED and finished.state is local.state
    assert finished.memory == local.memory
    assert finished.memory.log == ("started", "receipt o1 5", "parcel o1")
    assert (tmp_path / "calls.log").read_text().splitlines() == ["Charge o1:0", "Ship o1:1"]


async def test_a_missing_performer_parks_the_run_with_its_effect_pending(client: Client) -> None:
    task_queue = queue()
    async with machine_worker(client, task_queue, [ORDERS], Performers()):
        handle = await start_run(
            client, ORDERS, Order(order_id="o2", amount=5), run_id=f"o2-{task_queue}", task_queue=task_queue
        )
        failed = (await handle.result()).failure()
    assert isinstance(failed, RunFailed) and isinstance(failed.reason, EffectFailed)
    assert "no performer registered for Charge o2" in failed.describe()
    assert failed.snapshot.status is Status.AWAITING and failed.snapshot.pending == Charge("o2", 5)


@pytest.fixture
def refund(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """examples/refund_workflow.py, imported as the examples import each other (their folder on sys.path)."""
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import refund_workflow

    return refund_workflow


@pytest.fixture
def refunds(refund: types.ModuleType) -> TemporalMachine[Any, Any, Any]:
    return TemporalMachine(machine=refund.REFUNDS, awaited=[refund.AskManager])


async def test_an_approval_is_answered_once_and_every_other_answer_is_refused(
    client: Client,
    refunds: TemporalMachine[Any, Any, Any],
    refund: types.ModuleType,
) -> None:

    spec, task_queue = refunds, queue()
    async with machine_worker(client, task_queue, [spec], Performers(), passed_through=["refund_workflow"]):
        handle = await start_run(
            client, spec, refund.Refund(amount=500), run_id=f"r-{task_queue}", task_queue=task_queue
        )
        waiting = await wait_for_pending(handle)
        assert waiting.effect == refund.AskManager(500) and waiting.awaited and waiting.seq == 0
        snapshot = await handle.snapshot()
        assert snapshot is not None and snapshot.status is Status.AWAITING
        assert "does not accept a str" in (await handle.answer("yes")).failure().why
        results = await asyncio.gather(handle.answer(True), handle.answer(False))
        taken = [
            decision
            for decision, result in zip((True, False), results, strict=True)
            if result.value_or(-1) == 0
        ]
        refused = [r.failure() for r in results if not isinstance(r.value_or(None), int)]
        assert len(taken) == 1 and len(refused) == 1 and isinstance(refused[0], AnswerRefused)
        done = (await handle.result()).unwrap()
        assert done.memory.notes == ("received", f"manager: {taken[0]}")
        assert "not waiting" in (await handle.answer(True)).failure().why


async def test_a_cancelled_run_says_so(
    client: Client, refunds: TemporalMachine[Any, Any, Any], refund: types.ModuleType
) -> None:

    spec, task_queue = refunds, queue()
    async with machine_worker(client, task_queue, [spec], Performers(), passed_through=["refund_workflow"]):
        handle = await start_run(
            client, spec, refund.Refund(amount=500), run_id=f"c-{task_queue}", task_queue=task_queue
        )
        await wait_for_pending(handle)
        await handle.cancel()
        stopped = (await handle.result()).failure()
    assert stopped == RunCancelled(run_id=handle.run_id, detail="cancelled")


async def test_a_long_run_continues_as_new_and_keeps_numbering_its_effects(
    client: Client, tmp_path: Path
) -> None:
    task_queue, spec = queue(), TemporalMachine(machine=ORDERS, continue_after=1)
    async with machine_worker(client, task_queue, [spec], order_performers(tmp_path)):
        run = await start_run(
            client, spec, Order(order_id="o9", amount=7), run_id=f"o9-{task_queue}", task_queue=task_queue
        )
        finished = (await run.result()).unwrap()  # follows the chain of runs to the last one
        first_run = client.get_workflow_handle(run.run_id, run_id=run.handle.result_run_id)
        events = [e.WhichOneof("attributes") for e in (await first_run.fetch_history()).events]
    local = run_locally(Order(order_id="o9", amount=7))
    assert finished.memory == local.memory and finished.state is St.DONE
    assert "workflow_execution_continued_as_new_event_attributes" in events
    assert (tmp_path / "calls.log").read_text().splitlines() == [
        f"Charge o9-{task_queue}:0",
        f"Ship o9-{task_queue}:1",
    ]
