"""A child run costs its parent few transactions, and a kill in any of them loses nothing (SQLite).

Started inline, a parent that delegates to a child of one unsafe effect commits four
transactions: its wait with the child's row and run (taken by this process), the child's
started effect, the child's end with its outcome and the parent's answer (the parent handed back
to this process), and the parent's end. The process is SIGKILLed inside each of them in turn;
``recover`` then finishes the parent once, the child ends once, and its effect ran at most once
(a kill after it ran and before its outcome was committed leaves it unknown: a failed child).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agentsm_fn.durable import RunStatus, SqliteStore, child_run_id, stored_children
from agentsm_fn.durable.operations.recovery import recover
from tests.durable.transactions import counted_store
from tests.teams.programs import CHILD, DELEGATOR, NOTES_ENV, Boss, P

ROOT = Path(__file__).resolve().parents[2]
TRANSACTIONS = 4
"""The parent's wait (with its child), the child's started effect, the child's end, the parent's end."""


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "notes"
    monkeypatch.setenv(NOTES_ENV, str(path))
    return path


def test_a_parent_and_its_child_commit_four_transactions(tmp_path: Path, notes: Path) -> None:
    with counted_store(tmp_path / "runs.db") as (store, transactions):
        done = DELEGATOR.start(store, Boss(n=5), run_id="boss").unwrap()
        assert done.snapshot.state is P.DONE
        assert transactions.count == TRANSACTIONS
        (row,) = stored_children(store, "boss").unwrap()
        assert row.status is RunStatus.FINISHED and store.get("boss").unwrap().owner == ""
    assert notes.read_text().split() == ["5"]


@pytest.mark.parametrize("die_at", range(1, TRANSACTIONS + 1))
def test_a_kill_in_any_transaction_finishes_the_parent_once(tmp_path: Path, notes: Path, die_at: int) -> None:
    db = tmp_path / "runs.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "tests.teams.crash_commits", str(db), str(die_at)]
    killed = subprocess.run(args, cwd=ROOT, env=env, check=False, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    store = SqliteStore.open(db).unwrap()
    try:
        if store.get("boss").value_or(None) is None:  # killed in the first: nothing was stored
            DELEGATOR.start(store, Boss(n=5), run_id="boss").unwrap()
        else:
            recover(store, [DELEGATOR, CHILD]).unwrap()
        assert store.get("boss").unwrap().status is RunStatus.FINISHED
        (row,) = stored_children(store, "boss").unwrap()
        assert row.run_id == child_run_id("boss", 0) and row.ended
        assert row.status in (RunStatus.FINISHED, RunStatus.FAILED)
        assert [r.run_id for r in store.runs().unwrap()].count(row.run_id) == 1
        ran = notes.read_text().split() if notes.exists() else []
        allowed = (["5"], []) if row.status is RunStatus.FAILED else (["5"],)  # never twice
        assert ran in allowed
    finally:
        store.close()
