"""Crash tests of child runs (issue 29, item 6): real processes SIGKILLed, then recovered or replaced.

* A parent process is killed as it requests its child (before the child's row and run, the
  parent's wait and its stop are stored, in one transaction) and right after (the child stored,
  queued and claimed here, as its first effect starts): recovery finds the same child, runs it
  once, and the parent finishes once.
* A fan-out of 50 children on PostgreSQL, three ``agentsm-runs worker`` processes SIGKILLed and
  restarted while it runs: every child ends once, no child's unsafe effect runs twice, every
  parent finishes once.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentsm_fn.durable import RunStatus, RunStore, child_run_id, from_bytes, stored_children
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.running.child_rows import decoded
from agentsm_fn.teams import ChildFinished, Gathered
from tests.durable.test_worker import queue, until
from tests.teams.programs import CHILD, DELEGATOR, NOTES_ENV, WIDE, Boss, P

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv(NOTES_ENV, str(tmp_path / "notes"))
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.mark.parametrize("write", ["wait_on_children", "start_effect"])
def test_a_parent_killed_between_requesting_its_child_and_storing_it_finishes_once(
    write: str, store_db: str, env: dict[str, str], tmp_path: Path
) -> None:
    store = queue(store_db)
    try:
        DELEGATOR.enqueue(store, Boss(n=5), run_id="boss").unwrap()
        killed = subprocess.run(
            [sys.executable, "-m", "tests.teams.crash_parent", store_db, "boss", write],
            cwd=ROOT,
            env=env,
            check=False,
            timeout=60,
        )
        assert killed.returncode == -signal.SIGKILL
        after = write == "start_effect"  # the parent's wait stored, its child started here
        rows = stored_children(store, "boss").unwrap()  # requested: stored and queued in one transaction
        assert [(r.started, r.ended) for r in rows] == ([(True, False)] if after else [])
        assert (rows[0].status if after else None) in (RunStatus.RUNNING, None)  # its process died holding it
        dead = store.get("boss").unwrap().status  # waiting on its child, or held by the process that died
        assert dead is (RunStatus.WAITING if after else RunStatus.RUNNING)
        recover(store, [DELEGATOR, CHILD]).unwrap()
        done = store.get("boss").unwrap()
        assert done.status is RunStatus.FINISHED
        (row,) = stored_children(store, "boss").unwrap()
        assert row.run_id == child_run_id("boss", 0) and row.status is RunStatus.FINISHED
        assert decoded(row) == ChildFinished(run_id=row.run_id, program=CHILD.name, state="DONE", result=10)
        assert (tmp_path / "notes").read_text().split() == ["5"]  # the child's effect ran once
        assert [r.run_id for r in store.runs().unwrap()].count(row.run_id) == 1
    finally:
        store.close()


def _worker(db: str, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", db, "worker"]
    process = subprocess.Popen(
        [*command, WIDE.name, CHILD.name, "--poll", "0.05", "--concurrency", "8"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert "serving" in process.stdout.readline()
    return process


def _stopped(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()


@pytest.fixture
def workers() -> Iterator[list[subprocess.Popen[str]]]:
    running: list[subprocess.Popen[str]] = []
    try:
        yield running
    finally:
        for process in running:
            _stopped(process)


def test_a_fan_out_of_50_on_postgresql_survives_workers_killed_and_restarted(
    postgres_url: str, env: dict[str, str], tmp_path: Path, workers: list[subprocess.Popen[str]]
) -> None:
    store = queue(postgres_url)
    try:
        parents = ("fan-a", "fan-b")
        for at, parent in enumerate(parents):
            WIDE.enqueue(store, Boss(items=tuple(range(at * 25, at * 25 + 25))), run_id=parent).unwrap()
        workers.extend(_worker(postgres_url, env) for _ in range(3))
        chance = random.Random(29)
        for _ in range(3):  # kill one worker as children run, and start another in its place
            until(lambda: _ended(store, parents) >= len(workers) * 4 or _all_done(store, parents), "progress")
            victim = workers.pop(chance.randrange(len(workers)))
            victim.send_signal(signal.SIGKILL)
            _stopped(victim)
            workers.append(_worker(postgres_url, env))

        def finished() -> bool:
            recover(store, [])  # settles a parent whose last child's end was cut short by a kill
            return _all_done(store, parents)

        until(finished, "both parents to finish", timeout=120)
        notes = Counter((tmp_path / "notes").read_text().split())
        assert max(notes.values()) == 1  # no child's unsafe effect ran twice
        rows = [row for parent in parents for row in stored_children(store, parent).unwrap()]
        assert len(rows) == 50 and len({r.run_id for r in rows}) == 50  # each child started once
        assert all(r.ended and r.status in (RunStatus.FINISHED, RunStatus.FAILED) for r in rows)
        for parent in parents:
            record = store.get(parent).unwrap()
            assert record.status is RunStatus.FINISHED and record.state in (P.DONE.name, P.GAVE_UP.name)
            journal = store.journal(parent).unwrap()
            assert len(journal) == 1  # answered once: one entry
            gathered = _gathered(journal[0].outcome)
            assert [o.run_id for o in gathered.outcomes] == [child_run_id(parent, 0, i) for i in range(25)]
        finished_children = sum(isinstance(decoded(r), ChildFinished) for r in rows)
        assert finished_children <= sum(notes.values())  # a finished child's effect ran (once)
        print(
            f"{finished_children} of 50 children finished; {50 - finished_children} failed (an effect lost)"
        )
    finally:
        store.close()


def _gathered(outcome: bytes | None) -> Gathered:
    assert outcome is not None
    return from_bytes(outcome, Gathered).unwrap()


def _ended(store: RunStore, parents: tuple[str, ...]) -> int:
    return sum(r.ended for parent in parents for r in stored_children(store, parent).unwrap())


def _all_done(store: RunStore, parents: tuple[str, ...]) -> bool:
    return all(store.get(p).unwrap().status is RunStatus.FINISHED for p in parents)
