"""Child runs in a store (SQLite and PostgreSQL, the ``store`` fixture): started once, answering once.

With plain ``Durable.start`` the children run inline and the parent finishes in one call; with
``inline=False`` (as a worker runs) the parent waits holding no worker and its children are queued;
``recover`` finishes what is left; ``cancel`` cancels a run and its unfinished children.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import attrs
import pytest
from returns.result import Failure

from agentsm_fn.commands.runs.commands import main
from agentsm_fn.durable import (
    ChildRecord,
    Durable,
    NotResumable,
    RunStatus,
    RunStore,
    SqliteStore,
    cancel,
    child_run_id,
    stored_children,
)
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.running.child_rows import decoded
from agentsm_fn.teams import ChildCancelled, ChildFailed, ChildFinished, delegate
from tests.durable.stores import execute
from tests.teams.programs import (
    CHILD,
    CHILD_MACHINE,
    DELEGATOR,
    DELEGATOR_MACHINE,
    FANNER,
    NOTES_ENV,
    PE,
    STRICT,
    Boss,
    C,
    P,
)

GONE = Durable(
    name="tests.teams.test_durable:GONE",
    machine=DELEGATOR_MACHINE.extend(
        handlers={
            P.ASK: delegate(
                program="tests.teams.programs:NOBODY",
                child=CHILD_MACHINE,
                start=lambda boss: boss.n,
                ends={C.DONE: PE.ANSWERED, C.REFUSED: PE.DECLINED},
                failed=PE.BROKE,
                cancelled=PE.STOPPED,
                merge=lambda boss, outcome: attrs.evolve(boss, outcome=outcome),
            )
        }
    ),
)


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "notes"
    monkeypatch.setenv(NOTES_ENV, str(path))
    return path


def test_a_parent_runs_its_child_inline_and_finishes_in_one_call(store: RunStore, notes: Path) -> None:
    done = DELEGATOR.start(store, Boss(n=4), run_id="boss").unwrap()
    assert done.finished and done.snapshot.state is P.DONE
    child_id = child_run_id("boss", 0)
    assert done.snapshot.memory.outcome == ChildFinished(
        run_id=child_id, program=CHILD.name, state="DONE", result=8
    )
    (row,) = stored_children(store, "boss").unwrap()
    assert (row.run_id, row.parent, row.seq, row.index, row.size, row.status) == (
        child_id,
        "boss",
        0,
        -1,
        1,
        RunStatus.FINISHED,
    )
    assert decoded(row) == done.snapshot.memory.outcome
    assert store.get("boss").unwrap().status is RunStatus.FINISHED
    assert notes.read_text().split() == ["4"]


def test_a_failed_child_is_an_outcome_the_parent_routes(store: RunStore) -> None:
    done = DELEGATOR.start(store, Boss(n=13), run_id="boss").unwrap()
    assert done.snapshot.state is P.GAVE_UP
    outcome = done.snapshot.memory.outcome
    assert isinstance(outcome, ChildFailed) and "thirteen is unlucky" in outcome.reason
    assert store.get(child_run_id("boss", 0)).unwrap().status is RunStatus.FAILED


def test_a_fan_out_runs_each_child_once_and_gathers_in_order(store: RunStore, notes: Path) -> None:
    done = FANNER.start(store, Boss(items=(1, 2, 3, 4, 5)), run_id="fan").unwrap()
    assert done.snapshot.state is P.DONE and done.snapshot.memory.gathered is not None
    assert done.snapshot.memory.gathered.results == (2, 4, 6, 8, 10)
    rows = stored_children(store, "fan").unwrap()
    assert [(r.index, r.limit, r.status) for r in rows] == [(i, 3, RunStatus.FINISHED) for i in range(5)]
    assert sorted(notes.read_text().split()) == ["1", "2", "3", "4", "5"]


def test_cancel_rest_cancels_the_children_left_after_a_failure(store: RunStore) -> None:
    done = STRICT.start(store, Boss(items=(1, 13, 2)), run_id="strict").unwrap()
    assert done.snapshot.state is P.GAVE_UP and done.snapshot.memory.gathered is not None
    kinds = [type(o) for o in done.snapshot.memory.gathered.outcomes]
    assert kinds == [ChildFinished, ChildFailed, ChildCancelled]
    assert [r.status for r in stored_children(store, "strict").unwrap()] == [
        RunStatus.FINISHED,
        RunStatus.FAILED,
        None,
    ]


def test_a_parent_on_a_queue_waits_holding_nothing_and_recover_finishes_it(
    store: RunStore, notes: Path
) -> None:
    waiting = asyncio.run(FANNER.astart(store, Boss(items=(1, 2, 3, 4, 5)), run_id="fan", inline=False))
    assert not waiting.unwrap().finished
    record = store.get("fan").unwrap()
    assert record.status is RunStatus.WAITING and record.owner == ""
    assert [r.status for r in stored_children(store, "fan").unwrap()] == [RunStatus.READY] * 3 + [None] * 2
    recovered = recover(store, [FANNER, CHILD]).unwrap()
    assert {r.run_id for r in recovered} >= {"fan", *(child_run_id("fan", 0, i) for i in range(5))}
    assert store.get("fan").unwrap().status is RunStatus.FINISHED
    assert sorted(notes.read_text().split()) == ["1", "2", "3", "4", "5"]


def test_recover_answers_a_parent_whose_children_ended_before_its_wait_was_stored(
    store: RunStore, store_db: str
) -> None:
    asyncio.run(DELEGATOR.astart(store, Boss(n=2), run_id="boss", inline=False))
    child_id = child_run_id("boss", 0)
    CHILD.resume(store, child_id, inline=False).unwrap()
    # as if the child's answer had been lost: the parent waits again, its child's outcome stored
    execute(store_db, "UPDATE journal SET outcome = NULL WHERE run_id = ?", ("boss",))
    execute(store_db, "UPDATE runs SET status = 'waiting' WHERE id = ?", ("boss",))
    recover(store, [DELEGATOR, CHILD]).unwrap()
    assert store.get("boss").unwrap().status is RunStatus.FINISHED


def test_cancel_cancels_a_run_and_its_unfinished_children(store: RunStore) -> None:
    asyncio.run(FANNER.astart(store, Boss(items=(1, 2, 3, 4)), run_id="fan", inline=False))
    cancelled = cancel(store, "fan").unwrap()
    assert set(cancelled) == {"fan", *(child_run_id("fan", 0, i) for i in range(3))}
    rows = stored_children(store, "fan").unwrap()
    assert all(isinstance(decoded(r), ChildCancelled) for r in rows)
    assert store.get("fan").unwrap().status is RunStatus.CANCELLED
    resumed = FANNER.resume(store, "fan")
    assert isinstance(resumed, Failure) and isinstance(resumed.failure(), NotResumable)
    assert cancel(store, "fan").unwrap() == ()


def test_a_cancelled_child_gives_its_parent_child_cancelled(store: RunStore) -> None:
    asyncio.run(DELEGATOR.astart(store, Boss(n=2), run_id="boss", inline=False))
    assert cancel(store, child_run_id("boss", 0)).unwrap() == (child_run_id("boss", 0),)
    assert store.get("boss").unwrap().status is RunStatus.READY
    done = DELEGATOR.resume(store, "boss").unwrap()
    assert done.snapshot.state is P.GAVE_UP and isinstance(done.snapshot.memory.outcome, ChildCancelled)


def test_an_unknown_child_program_and_a_changed_child_machine_are_failed_children(
    store: RunStore, store_db: str
) -> None:
    gone = GONE.start(store, Boss(n=1), run_id="gone").unwrap()
    outcome = gone.snapshot.memory.outcome
    assert isinstance(outcome, ChildFailed) and outcome.reason.startswith("unknown child program")
    asyncio.run(DELEGATOR.astart(store, Boss(n=2), run_id="boss", inline=False))
    execute(store_db, "UPDATE runs SET fingerprint = 'old' WHERE id = ?", (child_run_id("boss", 0),))
    done = DELEGATOR.resume(store, "boss").unwrap()
    changed = done.snapshot.memory.outcome
    assert isinstance(changed, ChildFailed) and "machine changed" in changed.reason


def test_a_corrupt_stored_outcome_is_a_failed_child_saying_so() -> None:
    record = ChildRecord(
        run_id="p.c1",
        parent="p",
        seq=1,
        index=-1,
        size=1,
        program=CHILD.name,
        memory=b"",
        limit=1,
        cancel_rest=False,
        outcome=b"\x00not a payload",
        status=RunStatus.FINISHED,
    )
    outcome = decoded(record)
    assert isinstance(outcome, ChildFailed) and "stored outcome is corrupt" in outcome.reason


def test_an_older_store_gains_the_children_table(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    SqliteStore.open(path).unwrap().close()
    execute(path, "DROP TABLE children")
    reopened = SqliteStore.open(path).unwrap()
    try:
        assert stored_children(reopened, "any").unwrap() == ()
    finally:
        reopened.close()


def test_agentsm_runs_cancel_cancels_a_run_and_its_children(
    store: RunStore, store_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(DELEGATOR.astart(store, Boss(n=2), run_id="boss", inline=False))
    assert main(["--db", store_db, "cancel", "boss"]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == [
        "cancelled boss",
        f"cancelled {child_run_id('boss', 0)}",
    ]
    assert main(["--db", store_db, "cancel", "boss"]) == 0 and "had ended" in capsys.readouterr().out
    assert main(["--db", store_db, "cancel", "nobody"]) == 3
