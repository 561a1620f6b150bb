"""A parent's wait on the children it starts is one transaction (SQLite and PostgreSQL, ``store``).

``ChildStore.wait_on_children`` stores the children's rows, the first children's runs, the parent's
waiting entry, its checkpoint and its stop together, fenced by ownership; a parent that finds its
group stored already (an older process stored the rows, then died) settles it and goes on.
``ChildStore.stop_child`` stores a child's stop, its outcome and its parent's answer together.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from agentsm_fn.durable import (
    ChildStore,
    RunBusy,
    RunStatus,
    RunStore,
    child_run_id,
    stored_children,
    to_bytes,
)
from agentsm_fn.durable.stores.protocol.children import ChildrenWait, ChildStop, NewChild
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, NewRun, RunRecord
from tests.teams.programs import CHILD, DELEGATOR, NOTES_ENV, Boss


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "notes"
    monkeypatch.setenv(NOTES_ENV, str(path))
    return path


def _run(run_id: str, owner: str = "") -> NewRun:
    return NewRun(
        run_id=run_id,
        machine="m:M",
        fingerprint="f",
        memory=b"\x00",
        created=1.0,
        owner=owner,
        lease_until=9e9,
    )


def _wait(children: tuple[NewChild, ...], create: NewRun | None) -> ChildrenWait:
    return ChildrenWait(
        wait=JournalRow(seq=0, digest=b"d", ticks=(1.0,), outcome=None, at=None, waiting=True, effect=b"e"),
        children=children,
        start=tuple(_run(c.run_id) for c in children[:1]),
        checkpoint=Checkpoint(seq=0, state="ASK", steps=0, memory=b"m", pending=b"p"),
        record=RunRecord(
            run_id="p",
            machine="m:M",
            fingerprint="f",
            status=RunStatus.WAITING,
            created=2.0,
            updated=2.0,
            state="ASK",
        ),
        create=create,
    )


def _child(index: int) -> NewChild:
    return NewChild(
        run_id=child_run_id("p", 0, index), parent="p", seq=0, index=index, size=2, program="m:C", memory=b"c"
    )


def test_the_wait_stores_children_wait_checkpoint_and_stop_together(store: RunStore) -> None:
    assert isinstance(store, ChildStore)
    children = (_child(0), _child(1))
    assert store.wait_on_children("p", "me", _wait(children, _run("p", "me"))).unwrap() == 2
    record = store.get("p").unwrap()
    assert (record.status, record.owner, record.state) == (RunStatus.WAITING, "", "ASK")
    (row,) = store.journal("p").unwrap()
    assert (row.waiting, row.outcome, row.effect) == (True, None, b"e")
    assert store.checkpoint("p").unwrap() == _wait((), None).checkpoint
    found = stored_children(store, "p").unwrap()
    assert [(r.run_id, r.status) for r in found] == [
        (children[0].run_id, RunStatus.READY),
        (children[1].run_id, None),
    ]


def test_a_wait_by_an_owner_that_lost_its_run_writes_nothing(store: RunStore) -> None:
    assert isinstance(store, ChildStore)
    store.create(_run("p", "them")).unwrap()
    refused = store.wait_on_children("p", "me", _wait((_child(0), _child(1)), None))
    assert isinstance(refused.failure(), RunBusy)
    assert store.get("p").unwrap().owner == "them" and store.journal("p").unwrap() == ()
    assert stored_children(store, "p").unwrap() == () and store.checkpoint("p").unwrap() is None


def test_a_parent_that_finds_its_child_stored_already_settles_and_finishes_once(
    store: RunStore, notes: Path
) -> None:
    assert isinstance(store, ChildStore)
    DELEGATOR.enqueue(store, Boss(n=3), run_id="boss").unwrap()
    child_id, memory = child_run_id("boss", 0), to_bytes(3).unwrap()
    row = NewChild(run_id=child_id, parent="boss", seq=0, index=-1, size=1, program=CHILD.name, memory=memory)
    queued = NewRun(
        run_id=child_id,
        machine=CHILD.name,
        fingerprint=CHILD.fingerprint,
        memory=memory,
        created=1.0,
        owner="",
        lease_until=0.0,
    )
    store.add_children((row,), (queued,)).unwrap()  # as an older process did, dying before its wait
    done = DELEGATOR.resume(store, "boss").unwrap()
    assert done.finished and store.get(child_id).unwrap().status is RunStatus.FINISHED
    assert notes.read_text().split() == ["3"]


def _stop(outcome: bytes, answer: tuple[str, int] | None, take_until: float = 0.0) -> ChildStop:
    record = RunRecord(
        run_id="p.c0", machine="m:C", fingerprint="", status=RunStatus.FINISHED, created=3.0, updated=3.0
    )
    done = JournalRow(seq=0, digest=b"d", ticks=(), outcome=b"o", at=3.0)
    return ChildStop(record=record, tail=(), outcome=outcome, done=done, answer=answer, take_until=take_until)


@pytest.mark.parametrize("take_until", [0.0, 9e9])
def test_a_child_stops_with_its_outcome_and_its_parents_answer_once(
    store: RunStore, take_until: float
) -> None:
    assert isinstance(store, ChildStore)
    child = attrs.evolve(_child(0), run_id="p.c0", index=-1, size=1)
    taken = attrs.evolve(_run("p.c0", "me"), lease_until=9e9)
    wait = attrs.evolve(_wait((child,), _run("p", "me")), start=(taken,), taken=True)
    store.wait_on_children("p", "me", wait).unwrap()
    assert store.get("p.c0").unwrap().status is RunStatus.RUNNING  # taken at once by the parent's process
    store.start_effect("p.c0", JournalRow(seq=0, digest=b"d", ticks=(), outcome=None, at=None), "me").unwrap()
    assert isinstance(store.stop_child("p.c0", "them", _stop(b"x", ("p", 0))).failure(), RunBusy)
    assert store.stop_child("p.c0", "me", _stop(b"first", ("p", 0), take_until)).unwrap()
    child_record, parent = store.get("p.c0").unwrap(), store.get("p").unwrap()
    assert (child_record.status, child_record.owner) == (RunStatus.FINISHED, "")
    assert store.journal("p.c0").unwrap()[0].outcome == b"o"
    assert store.journal("p").unwrap()[0].outcome == b"first"
    expected = (RunStatus.RUNNING, "me") if take_until else (RunStatus.READY, "")
    assert (parent.status, parent.owner) == expected
    assert [r.outcome for r in stored_children(store, "p").unwrap()] == [b"first"]


def test_the_first_unstarted_child_is_the_lowest_index_with_no_run_and_no_outcome(store: RunStore) -> None:
    assert isinstance(store, ChildStore)
    children = tuple(attrs.evolve(_child(i), size=4) for i in range(4))
    store.wait_on_children("p", "me", _wait(children, _run("p", "me"))).unwrap()  # child 0 is started

    def first() -> str | None:
        found = store.first_unstarted("p", 0).unwrap()
        return None if found is None else found.run_id

    assert first() == children[1].run_id
    assert store.end_child(children[1].run_id, b"cancelled before it started").unwrap()
    assert first() == children[2].run_id
    store.enqueue(_run(children[2].run_id)).unwrap()
    assert first() == children[3].run_id
    assert store.first_unstarted("p", 0, after=3).unwrap() is None  # none above the last
    assert store.first_unstarted("p", 1).unwrap() is None and store.first_unstarted("q", 0).unwrap() is None
    store.enqueue(_run(children[3].run_id)).unwrap()
    assert first() is None
