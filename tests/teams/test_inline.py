"""A caller with no workers runs the team on: async children inline, and a resumed child's parents.

``astart``/``aresume`` run the children a parent waits on here (a fan-out's concurrently, up to
its ``limit``) as ``start``/``resume`` do; a child that waited for an approval and is resumed by
the caller after ``answer`` goes on with its parent, and up the chain, in the same call.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentsm_fn.durable import RunStatus, RunStore, child_run_id
from agentsm_fn.durable.operations.answers import answer
from agentsm_fn.teams import ChildFinished, Gathered
from tests.teams.programs import (
    ASKER,
    ASKING,
    CHILD,
    DELEGATOR,
    FANNER,
    GRAND,
    MEET,
    MEETING_BARRIER,
    NOTES_ENV,
    Boss,
    P,
)


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "notes"
    monkeypatch.setenv(NOTES_ENV, str(path))
    return path


def test_astart_runs_a_fan_out_inline_and_the_parent_finishes(store: RunStore, notes: Path) -> None:
    done = asyncio.run(FANNER.astart(store, Boss(items=(1, 2, 3, 4, 5)), run_id="fan")).unwrap()
    assert done.finished and done.snapshot.state is P.DONE
    assert done.snapshot.memory.gathered == Gathered(
        outcomes=tuple(
            ChildFinished(run_id=child_run_id("fan", 0, i), program=CHILD.name, state="DONE", result=2 * n)
            for i, n in enumerate((1, 2, 3, 4, 5))
        )
    )
    assert sorted(notes.read_text().split()) == ["1", "2", "3", "4", "5"]  # each child's effect once


def test_astart_runs_a_delegated_child_inline(store: RunStore, notes: Path) -> None:
    done = asyncio.run(DELEGATOR.astart(store, Boss(n=4), run_id="boss")).unwrap()
    assert done.snapshot.state is P.DONE
    assert isinstance(done.snapshot.memory.outcome, ChildFinished)
    assert done.snapshot.memory.outcome.result == 8


def test_aresume_of_a_waiting_parent_runs_its_children(store: RunStore, notes: Path) -> None:
    asyncio.run(FANNER.astart(store, Boss(items=(1, 2, 3, 4)), run_id="fan", inline=False))
    assert store.get("fan").unwrap().status is RunStatus.WAITING
    done = asyncio.run(FANNER.aresume(store, "fan")).unwrap()
    assert done.finished and store.get(child_run_id("fan", 0, 3)).unwrap().status is RunStatus.FINISHED


@pytest.mark.parametrize("use_async", [False, True])
def test_answering_a_childs_approval_and_resuming_it_finishes_the_whole_chain(
    store: RunStore, use_async: bool
) -> None:
    waiting = GRAND.start(store, Boss(n=3), run_id="grand").unwrap()
    assert not waiting.finished
    middle = child_run_id("grand", 0)
    asking = child_run_id(middle, 0)
    assert [store.get(r).unwrap().status for r in ("grand", middle, asking)] == [RunStatus.WAITING] * 3
    answer(store, asking, 0, True).unwrap()
    resumed = asyncio.run(ASKING.aresume(store, asking)) if use_async else ASKING.resume(store, asking)
    assert resumed.unwrap().finished  # the call returns the child's own run
    assert [store.get(r).unwrap().status for r in ("grand", middle, asking)] == [RunStatus.FINISHED] * 3
    assert store.get("grand").unwrap().state == "DONE"


def test_inline_false_leaves_the_parent_ready_for_a_worker(store: RunStore) -> None:
    ASKER.start(store, Boss(n=2), run_id="asker")
    asking = child_run_id("asker", 0)
    answer(store, asking, 0, False).unwrap()
    ASKING.resume(store, asking, inline=False).unwrap()
    assert store.get("asker").unwrap().status is RunStatus.READY
    done = ASKER.resume(store, "asker").unwrap()
    outcome = done.snapshot.memory.outcome
    assert done.snapshot.state is P.DONE and isinstance(outcome, ChildFinished) and outcome.state == "REFUSED"


def test_astart_runs_a_fan_outs_children_concurrently_up_to_its_limit(store: RunStore) -> None:
    # each child's effect waits until three are in flight: run one after the other, none would finish
    MEETING_BARRIER.append(asyncio.Barrier(3))
    try:
        done = asyncio.run(MEET.astart(store, Boss(items=(1, 2, 3, 4, 5, 6)), run_id="meet")).unwrap()
    finally:
        MEETING_BARRIER.clear()
    gathered = done.snapshot.memory.gathered
    assert done.snapshot.state is P.DONE and gathered is not None
    assert [o.result for o in gathered.outcomes if isinstance(o, ChildFinished)] == [2, 4, 6, 8, 10, 12]
