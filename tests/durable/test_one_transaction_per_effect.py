"""One transaction per effect: the outcome of an effect goes in with the next write, and a kill loses nothing.

The outcome of an effect that is not retry-safe is committed with the started row of the next
effect (or where the run stops), before anything else is performed. The transactions are counted
on the store's connection. Then a payments run (every effect not retry-safe, each writing to an
external ledger) is killed with SIGKILL inside every one of its transactions and in every payment,
before and after the ledger write; every time, the resumed run ends with every committed outcome
kept, no payment made twice, and an unknown outcome (the machine's unknown route) exactly for the
payment whose outcome was not committed at the kill.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest
from pyrsistent import pvector

from agentsm_fn.durable import SqliteStore, open_store
from tests.durable import machines
from tests.durable.payments import DURABLE_PAYMENTS, Payments, ledger_lines
from tests.durable.round_trips import count_round_trips
from tests.durable.transactions import counted_store

ROOT = Path(__file__).resolve().parents[2]
PAYMENTS = 3
TRANSACTIONS = PAYMENTS + 1
"""The first started row (with the run itself), one per payment after it, and the stop."""


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ledger.txt"
    monkeypatch.setenv("PAYMENTS_LEDGER", str(path))
    return path


@pytest.mark.parametrize("count", [1, 5, 40])
def test_a_run_whose_effects_are_not_retry_safe_commits_one_transaction_per_effect(
    tmp_path: Path, ledger: Path, count: int
) -> None:
    with counted_store(tmp_path / "runs.db") as (store, transactions):
        done = DURABLE_PAYMENTS.start(store, Payments(count=count), run_id="p").unwrap()
        assert done.finished and len(done.snapshot.memory.receipts) == count
        # each checkpoint: the held outcome, then the checkpoint
        checkpoints = (count - 1) // DURABLE_PAYMENTS.checkpoint_after
        assert transactions.count == count + 1 + 2 * checkpoints  # two per effect before (2 * count + 1)
        assert all(row.outcome is not None for row in store.journal("p").unwrap())


def test_async_runs_commit_one_transaction_per_effect_too(tmp_path: Path, ledger: Path) -> None:
    with counted_store(tmp_path / "runs.db") as (store, transactions):
        done = asyncio.run(DURABLE_PAYMENTS.astart(store, Payments(count=5), run_id="p")).unwrap()
        assert done.finished and transactions.count == 6
        assert [row.outcome is not None for row in store.journal("p").unwrap()] == [True] * 5


def test_a_retry_safe_effect_commits_the_held_outcome_before_it_is_performed(tmp_path: Path) -> None:
    # lookup (retry-safe), charge (not) three times: the charge's outcome is committed before the next
    # lookup is performed (1 + 1 + 2 + 1 + 2 + 1 + the stop with the last charge), one fewer than before
    with counted_store(tmp_path / "runs.db") as (store, transactions):
        assert machines.DURABLE_ORDERS.start(store, machines.Order(items=3)).unwrap().finished
        assert transactions.count == 9


def committed(db: Path) -> dict[int, bytes]:
    with closing(sqlite3.connect(db)) as connection:
        rows = connection.execute("SELECT seq, outcome FROM journal WHERE outcome IS NOT NULL").fetchall()
    return {int(seq): bytes(outcome) for seq, outcome in rows}


def in_flight(db: Path) -> list[int]:
    with closing(sqlite3.connect(db)) as connection:
        return [int(row[0]) for row in connection.execute("SELECT seq FROM journal WHERE outcome IS NULL")]


KILLS = [(f"transaction {n}", n, "") for n in range(1, TRANSACTIONS + 1)] + [
    (f"{when} payment {n}", 0, f"{when} {n}") for n in range(PAYMENTS) for when in ("before", "after")
]


@pytest.mark.parametrize(("point", "die_at", "die_in"), KILLS, ids=[kill[0] for kill in KILLS])
def test_a_kill_at_every_point_loses_no_committed_outcome_and_pays_nothing_twice(
    tmp_path: Path, ledger: Path, point: str, die_at: int, die_in: str
) -> None:
    db = tmp_path / "runs.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAYMENTS_DIE_IN": die_in}
    args = [sys.executable, "-m", "tests.durable.payments_worker", str(db), "p", str(PAYMENTS), str(die_at)]
    worker = subprocess.run(args, cwd=ROOT, env=env, check=False, timeout=120)
    assert worker.returncode == -signal.SIGKILL, point
    before, unknown = committed(db), in_flight(db)  # the worker made the tables before anything
    paid_before = {line.split()[0] for line in ledger_lines(ledger)}
    store = SqliteStore.open(db).unwrap()
    found = store.get("p")
    done = (
        DURABLE_PAYMENTS.resume(store, "p")
        if found.value_or(None) is not None
        else DURABLE_PAYMENTS.start(store, Payments(count=PAYMENTS), run_id="p")
    ).unwrap()
    assert done.finished
    assert list(done.snapshot.memory.unknown) == unknown  # the machine's unknown route, for that one alone
    receipts = pvector(f"receipt-p:{n}" for n in range(PAYMENTS) if n not in unknown)
    assert done.snapshot.memory.receipts == receipts
    after = committed(db)
    assert {seq: after.get(seq) for seq in before} == before, "a committed outcome was lost or changed"
    paid = Counter(line.split()[0] for line in ledger_lines(ledger))
    assert max(paid.values()) == 1, f"a payment was made twice: {paid}"
    assert sorted(paid) == sorted({f"p:{n}" for n in range(PAYMENTS) if n not in unknown} | paid_before)
    store.close()


def test_on_postgresql_each_effect_is_one_round_trip(
    postgres_url: str, ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(postgres_url).unwrap()
    round_trips = count_round_trips(monkeypatch)
    counts = []
    for count in (1, 5, 9):  # no checkpoint yet
        round_trips.count = 0
        done = DURABLE_PAYMENTS.start(store, Payments(count=count), run_id=f"p{count}").unwrap()
        assert done.finished and len(done.snapshot.memory.receipts) == count
        counts.append(round_trips.count)
    store.close()
    # each effect one statement: its started row, fenced, completing the one before (before: four)
    assert counts[1] - counts[0] == counts[2] - counts[1] == 4
    # a run of one payment: its started row (the run stored by the same statement), and its stop,
    # which completes the held outcome in the same statement (before: BEGIN, complete, stop, COMMIT)
    assert counts[0] == 2
