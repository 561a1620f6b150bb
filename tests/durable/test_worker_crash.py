"""Crash test: three worker processes on one PostgreSQL database, SIGKILLed at random 100 times, lose nothing.

Payments runs (every effect not retry-safe, each payment a line in an external ledger under its
idempotency key, and taking a few milliseconds on either side of it) are enqueued; three worker
processes serve them (``durable.operations.worker.serve``, the loop of ``agentsm-runs worker``, each forked
from one process that imported the library once, so a restart costs milliseconds). A seeded RNG
waits until a few more payments reached the ledger, picks a worker, kills it with SIGKILL and
starts a new one, 100 times. Then every run ends, and: no committed outcome was lost or changed
(the journals are read after every kill); no payment was made twice (each key is in the ledger at
most once); a payment whose outcome is unknown (in flight at a kill) took the machine's unknown
route and is in the ledger at most once, every other payment exactly once, with its receipt in
the run's memory.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from agentsm_fn.durable import open_store
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from agentsm_fn.durable.stores.protocol.store import RunStore
from tests.durable.payments import DURABLE_PAYMENTS, Payments, ledger_lines
from tests.durable.stores import execute

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("CRASH_SEED", "20261126"))
BATCH, PAYMENTS, WORKERS, KILLS = 30, 3, 3, 100


def until(condition: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def committed(db: str) -> dict[tuple[str, int], bytes]:
    rows = execute(db, "SELECT run_id, seq, outcome FROM journal WHERE outcome IS NOT NULL")
    return {(str(run_id), int(str(seq))): bytes(outcome) for run_id, seq, outcome in rows}  # type: ignore[call-overload]  # a bytes column


def paid_past(ledger: Path, lines: int) -> Callable[[], bool]:
    return lambda: len(ledger_lines(ledger)) >= lines


class Workers:
    """Three worker processes forked by ``tests.durable.worker_forks`` (see there), killed, started again."""

    def __init__(self, db: str, env: dict[str, str]) -> None:
        self.server = subprocess.Popen(
            [sys.executable, "-m", "tests.durable.worker_forks", db],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.pids = [self.ask("start") for _ in range(WORKERS)]

    def ask(self, command: str) -> str:
        assert self.server.stdin is not None and self.server.stdout is not None
        self.server.stdin.write(command + "\n")
        self.server.stdin.flush()
        return self.server.stdout.readline().strip()

    def kill_and_restart(self, victim: int) -> None:
        assert self.ask(f"kill {self.pids[victim]}") == "killed"
        self.pids[victim] = self.ask("start")

    def stop(self) -> str:
        said = self.ask("stop") if self.server.poll() is None else "gone"
        try:
            self.server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        for pipe in (self.server.stdin, self.server.stdout):
            if pipe is not None:
                pipe.close()
        return said


def crash_workers(store: RunQueue, db: str, ledger: Path) -> tuple[int, dict[tuple[str, int], bytes]]:
    """Run the queue with three workers killed at random; the kills and every outcome seen committed.

    Each kill waits until one to three more payments are in the ledger. Runs are enqueued as the
    queue runs low, so there is work to kill until the last kill, however fast the workers are.
    """
    rng = random.Random(SEED)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAYMENTS_LEDGER": str(ledger), "PAYMENTS_DELAY": "0.01"}
    enqueued = 0
    workers = Workers(db, env)
    seen: dict[tuple[str, int], bytes] = {}
    kills = 0
    try:
        while kills < KILLS:
            if len(store.runs(unfinished_only=True).unwrap()) < BATCH:
                for index in range(enqueued, enqueued + BATCH):
                    DURABLE_PAYMENTS.enqueue(store, Payments(count=PAYMENTS), run_id=f"p{index}").unwrap()
                enqueued += BATCH
            until(paid_past(ledger, len(ledger_lines(ledger)) + rng.randint(1, 3)), "payments", timeout=120)
            workers.kill_and_restart(rng.randrange(WORKERS))
            kills += 1
            now = committed(db)
            lost = {key for key, outcome in seen.items() if now.get(key) != outcome}
            assert not lost, f"committed outcomes lost or changed after kill {kills}: {sorted(lost)}"
            seen = now
        until(lambda: not store.runs(unfinished_only=True).unwrap(), "every run to end", 120)
    finally:
        stopped = workers.stop()
    assert stopped == "stopped 0 0 0", f"the workers did not stop on SIGTERM: {stopped}"
    return kills, seen


def check_every_run(store: RunStore, db: str, ledger: Path, seen: dict[tuple[str, int], bytes]) -> int:
    """Assert what the module docstring says of the ended runs; how many payments were unknown."""
    now = committed(db)
    lost = {key for key, outcome in seen.items() if now.get(key) != outcome}
    assert not lost, f"committed outcomes lost or changed: {sorted(lost)}"
    paid = Counter(line.split()[0] for line in ledger_lines(ledger))
    assert max(paid.values()) == 1, f"payments made twice: {[key for key, n in paid.items() if n > 1]}"
    unknown = 0
    for record in store.runs().unwrap():
        run_id = record.run_id
        memory = replay_stored(store, DURABLE_PAYMENTS.machine, run_id).unwrap().memory
        assert isinstance(memory, Payments) and memory.made == PAYMENTS
        for payment in range(PAYMENTS):
            key = f"{run_id}:{payment}"
            if payment in memory.unknown:  # the unknown route: made at most once, never again
                unknown += 1
                assert b"UNKNOWN" in now[(run_id, payment)]
                assert paid[key] <= 1
            else:
                assert f"receipt-{key}" in memory.receipts and paid[key] == 1, key
    return unknown


def test_three_workers_killed_at_random_a_hundred_times_lose_nothing_and_pay_nothing_twice(
    tmp_path: Path, postgres_url: str
) -> None:
    db, ledger = postgres_url, tmp_path / "ledger.txt"
    store = open_store(db).unwrap()
    assert isinstance(store, RunQueue)
    kills, seen = crash_workers(store, db, ledger)
    unknown = check_every_run(store, db, ledger, seen)
    assert kills >= KILLS and unknown > 0  # some kills landed in a payment
    ended = len(store.runs().unwrap())
    print(f"{kills} kills; {ended} runs ended; {unknown} payments in flight at a kill took the unknown route")
    store.close()
