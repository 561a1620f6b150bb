"""Workers: real ``agentsm-runs worker`` processes on one store (SQLite or PostgreSQL) take each run once.

Runs are enqueued READY (``Durable.enqueue``); workers claim them, run them, stop on SIGTERM
(a held run finishes; nothing more is taken) and take up the runs of a worker that was killed.
Every payment writes to an external ledger under its idempotency key: none is made twice.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agentsm_fn.durable import RunStatus, RunStore, open_store
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from tests.durable import machines
from tests.durable.payments import ASYNC_PAYMENTS, DURABLE_PAYMENTS, Payments, ledger_lines

ROOT = Path(__file__).resolve().parents[2]


def until(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


@contextmanager
def worker(
    db: str, env: dict[str, str], *flags: str, serves: str = DURABLE_PAYMENTS.name, poll: str = "0.05"
) -> Iterator[subprocess.Popen[str]]:
    command = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", db, "worker"]
    process = subprocess.Popen(
        [*command, serves, "--poll", poll, *flags],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert "serving" in process.stdout.readline()  # up, its signal handlers set
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("PAYMENTS_LEDGER", str(tmp_path / "ledger.txt"))
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def statuses(store: RunStore) -> Counter[RunStatus]:
    return Counter(record.status for record in store.runs().unwrap())


def queue(db: str) -> RunQueue:
    store = open_store(db).unwrap()
    assert isinstance(store, RunQueue)
    return store


def test_workers_run_every_queued_run_once_and_stop_on_sigterm(
    tmp_path: Path, env: dict[str, str], store_db: str
) -> None:
    db, runs = store_db, 30
    store = queue(db)
    for index in range(runs):
        assert DURABLE_PAYMENTS.enqueue(store, Payments(count=3), run_id=f"p{index}").unwrap() == f"p{index}"
    assert statuses(store) == {RunStatus.READY: runs}
    with worker(db, env, "--concurrency", "3") as one, worker(db, env, "--concurrency", "3") as two:
        until(lambda: statuses(store) == {RunStatus.FINISHED: runs}, "every run to finish")
        for process in (one, two):
            process.send_signal(signal.SIGTERM)
        assert one.wait(timeout=30) == 0 and two.wait(timeout=30) == 0
        outputs = [process.stdout.read() for process in (one, two) if process.stdout is not None]
    assert sum(output.count(": finished after") for output in outputs) == runs  # each run taken once
    paid = Counter(line.split()[0] for line in ledger_lines(tmp_path / "ledger.txt"))
    assert paid == {f"p{index}:{n}": 1 for index in range(runs) for n in range(3)}
    for index in range(runs):
        receipts = DURABLE_PAYMENTS.resume(store, f"p{index}")  # finished: refused, nothing performed
        assert receipts.failure().describe().endswith("it is finished")
    store.close()


def test_after_sigterm_a_held_run_finishes_and_nothing_more_is_taken(
    tmp_path: Path, env: dict[str, str], store_db: str
) -> None:
    db, gate = store_db, tmp_path / "gate"
    store = queue(db)
    DURABLE_PAYMENTS.enqueue(store, Payments(count=2), run_id="held").unwrap()
    with worker(db, {**env, "PAYMENTS_GATE": str(gate)}, "--concurrency", "1") as process:
        until(lambda: len(store.journal("held").unwrap()) == 1, "the first payment to start")
        process.send_signal(signal.SIGTERM)
        DURABLE_PAYMENTS.enqueue(store, Payments(count=1), run_id="late").unwrap()
        gate.touch()
        assert process.wait(timeout=30) == 0
    assert store.get("held").unwrap().status is RunStatus.FINISHED
    assert store.get("late").unwrap().status is RunStatus.READY
    store.close()


def test_the_runs_of_a_killed_worker_are_taken_up_by_another(
    tmp_path: Path, env: dict[str, str], store_db: str
) -> None:
    db, gate = store_db, tmp_path / "gate"
    store = queue(db)
    DURABLE_PAYMENTS.enqueue(store, Payments(count=2), run_id="orphan").unwrap()
    with worker(db, {**env, "PAYMENTS_GATE": str(gate)}) as first:
        until(lambda: len(store.journal("orphan").unwrap()) == 1, "the first payment to start")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    assert store.get("orphan").unwrap().status is RunStatus.RUNNING  # its owner is dead: orphaned
    gate.touch()
    with worker(db, env) as second:
        until(lambda: store.get("orphan").unwrap().status is RunStatus.FINISHED, "the orphan to finish")
        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=30) == 0
    memory = DURABLE_PAYMENTS.resume(store, "orphan")
    assert memory.failure().describe().endswith("it is finished")
    done = store.journal("orphan").unwrap()
    assert [row.outcome is not None for row in done] == [True, True]
    assert b"UNKNOWN" in (done[0].outcome or b"")  # in flight at the kill, not retry-safe: unknown
    assert [line.split()[0] for line in ledger_lines(tmp_path / "ledger.txt")] == ["orphan:1"]
    store.close()


def test_on_postgresql_a_worker_wakes_when_a_run_is_enqueued_or_answered_without_polling(
    env: dict[str, str], postgres_url: str
) -> None:
    store = queue(postgres_url)
    orders = machines.DURABLE_ORDERS_WALL
    with worker(postgres_url, env, serves=orders.name, poll="600") as process:  # it looks again in 10 minutes
        orders.enqueue(store, machines.Order(items=2, approval_over=0), run_id="o").unwrap()
        until(lambda: store.get("o").unwrap().status is RunStatus.WAITING, "the enqueued run to ask", 60)
        (waiting,) = pending(store).unwrap()
        answer(store, "o", waiting.seq, True).unwrap()
        until(lambda: store.get("o").unwrap().status is RunStatus.FINISHED, "the answered run to end", 60)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    memory = replay_stored(store, orders.machine, "o").unwrap().memory
    assert memory.approved is True and len(memory.receipts) == 2
    store.close()


def test_past_the_grace_a_held_run_is_let_go_and_the_next_worker_takes_it(
    tmp_path: Path, env: dict[str, str], store_db: str
) -> None:
    gate, store = tmp_path / "gate", queue(store_db)
    ASYNC_PAYMENTS.enqueue(store, Payments(count=2), run_id="slow").unwrap()
    gated = {**env, "PAYMENTS_GATE": str(gate)}
    with worker(store_db, gated, "--grace", "0.2", serves=ASYNC_PAYMENTS.name) as process:
        until(lambda: len(store.journal("slow").unwrap()) == 1, "the first payment to start")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    assert store.get("slow").unwrap().status is RunStatus.READY  # back in the queue, where its journal stands
    gate.touch()
    with worker(store_db, env, serves=ASYNC_PAYMENTS.name) as process:
        until(lambda: store.get("slow").unwrap().status is RunStatus.FINISHED, "the run to end")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    first, second = store.journal("slow").unwrap()
    assert b"UNKNOWN" in (first.outcome or b"") and second.outcome is not None  # cancelled in flight: unknown
    assert [line.split()[0] for line in ledger_lines(tmp_path / "ledger.txt")] == ["slow:1"]
    store.close()
