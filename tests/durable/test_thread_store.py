"""Every store keeps threads alike: one suite, run against SQLite and PostgreSQL (``store`` fixture).

A thread's next turn is taken by one conditional write (a second taker is refused, naming the
turn that holds the place, even from another connection at the same moment); a queued turn's run
is stored once; pages of threads are keyset pages, newest first, filtered; a fork holds its
parent's earlier turns and runs; a delete removes the thread, its turns and the runs no other
thread names, with their journals, in one transaction.
"""

from __future__ import annotations

import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure

from agentsm_fn.durable import (
    NewRun,
    NewThread,
    NewTurn,
    RunStore,
    StoreFailure,
    ThreadBusy,
    ThreadExists,
    ThreadNotFound,
    ThreadQuery,
    ThreadStore,
    TurnStatus,
    open_store,
)
from agentsm_fn.durable.stores.protocol.owners import this_owner
from tests.durable.stores import entry, execute
from tests.durable.test_store import POINT


def threads(store: RunStore) -> ThreadStore:
    assert isinstance(store, ThreadStore)
    return store


def new_thread(
    thread_id: str = "t1", created: float = 1.0, machine: str = "app:CHAT", **more: object
) -> NewThread:
    return NewThread(thread_id=thread_id, machine=machine, created=created, **more)  # type: ignore[arg-type]  # test values


def new_run(run_id: str, parent: str = "") -> NewRun:
    return NewRun(
        run_id=run_id,
        machine="app:CHAT",
        fingerprint="f",
        memory=b"m",
        created=2.0,
        owner=this_owner(),
        lease_until=1e12,
        parent=parent,
        parent_step=0 if parent else -1,
    )


def turn(number: int, run_id: str, thread_id: str = "t1", message: str = "") -> NewTurn:
    return NewTurn(
        thread_id=thread_id, turn=number, run_id=run_id, message=message or f"m{number}", created=3.0
    )


def finished(store: RunStore, store_db: str, run_id: str) -> None:
    """Play the turn's process: the run ends."""
    execute(store_db, "UPDATE runs SET status = 'finished', owner = NULL WHERE id = ?", (run_id,))


def test_a_thread_is_created_once_and_read_back(store: RunStore) -> None:
    kept = threads(store)
    assert kept.create_thread(new_thread(title="Support")).unwrap() is None
    assert kept.create_thread(new_thread()).failure() == ThreadExists(thread_id="t1")
    record = kept.thread("t1").unwrap()
    assert (record.thread_id, record.machine, record.turns, record.title, record.last) == (
        "t1",
        "app:CHAT",
        0,
        "Support",
        None,
    )
    assert kept.thread("t9").failure() == ThreadNotFound(thread_id="t9")
    assert kept.turns("t9").unwrap() == ()


def test_the_next_turn_is_taken_once_and_a_second_taker_is_told_which_turn_holds_it(
    store: RunStore, store_db: str
) -> None:
    kept = threads(store)
    kept.create_thread(new_thread()).unwrap()
    assert kept.take_turn(turn(0, "r0"), new_run("r0")).unwrap() is None
    refused = kept.take_turn(turn(0, "rX"), new_run("rX")).failure()
    assert refused == ThreadBusy(thread_id="t1", turn=0, run_id="r0", status="running")
    assert store.get("rX").failure().describe() == "no stored run rX"  # nothing of the loser was stored
    last = kept.thread("t1").unwrap().last
    assert last is not None and (last.turn, last.run_id, last.message, last.status) == (
        0,
        "r0",
        "m0",
        TurnStatus.RUNNING,
    )
    assert store.get("r0").unwrap().owner == this_owner()  # the run was stored with the turn, owned
    finished(store, store_db, "r0")
    assert kept.take_turn(turn(1, "r1"), None).unwrap() is None  # queued: no run yet
    assert [(t.turn, t.status) for t in kept.turns("t1").unwrap()] == [
        (0, TurnStatus.FINISHED),
        (1, TurnStatus.QUEUED),
    ]
    assert kept.take_turn(turn(2, "r2", thread_id="t9"), None).failure() == ThreadNotFound(thread_id="t9")


def test_a_queued_turns_run_is_stored_once_and_only_under_its_own_id(store: RunStore) -> None:
    kept = threads(store)
    kept.create_thread(new_thread()).unwrap()
    kept.take_turn(turn(0, "r0"), None).unwrap()
    assert kept.start_queued("t1", 0, new_run("other")).unwrap() is False  # not the turn's run
    assert kept.start_queued("t1", 0, new_run("r0")).unwrap() is True
    assert kept.start_queued("t1", 0, new_run("r0")).unwrap() is False
    assert kept.turns("t1").unwrap()[0].status is TurnStatus.RUNNING


def test_concurrent_takers_on_their_own_connections_get_one_turn(store: RunStore, store_db: str) -> None:
    threads(store).create_thread(new_thread()).unwrap()
    stores = [open_store(store_db).unwrap() for _ in range(6)]
    barrier = threading.Barrier(len(stores))
    results: list[object] = [None] * len(stores)

    def take(index: int) -> None:
        barrier.wait()
        results[index] = threads(stores[index]).take_turn(turn(0, f"r{index}"), new_run(f"r{index}"))

    workers = [threading.Thread(target=take, args=(index,)) for index in range(len(stores))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for opened in stores:
        opened.close()
    won = [index for index, result in enumerate(results) if not isinstance(result, Failure)]
    assert len(won) == 1
    winner = f"r{won[0]}"
    for result in results:
        if isinstance(result, Failure):
            assert result.failure() == ThreadBusy(thread_id="t1", turn=0, run_id=winner, status="running")
    assert [r.run_id for r in store.runs().unwrap()] == [winner]


def test_the_thread_so_far_is_kept_once_per_turn_run(store: RunStore) -> None:
    kept = threads(store)
    kept.create_thread(new_thread()).unwrap()
    kept.take_turn(turn(0, "r0"), new_run("r0")).unwrap()
    assert kept.so_far("t1", 0).unwrap() is None
    assert kept.turns("t1").unwrap()[0].so_far_kept is False
    kept.keep_so_far("r0", b"first").unwrap()
    kept.keep_so_far("r0", b"second").unwrap()
    assert kept.so_far("t1", 0).unwrap() == b"first"
    assert kept.so_far("t1", 5).unwrap() is None
    assert kept.turns("t1").unwrap()[0].so_far_kept is True


def _three_turns(store: RunStore, store_db: str, thread_id: str = "t1") -> None:
    kept = threads(store)
    kept.create_thread(new_thread(thread_id)).unwrap()
    for number in range(3):
        run_id = f"{thread_id}-r{number}"
        kept.take_turn(turn(number, run_id, thread_id), new_run(run_id)).unwrap()
        store.start_effect(run_id, entry(0), this_owner()).unwrap()
        store.save_checkpoint(run_id, POINT, this_owner()).unwrap()
        finished(store, store_db, run_id)
        kept.keep_so_far(run_id, f"after {number}".encode()).unwrap()


def test_a_fork_holds_the_earlier_turns_and_runs_of_its_parent_and_its_own_turn(
    store: RunStore, store_db: str
) -> None:
    _three_turns(store, store_db)
    kept = threads(store)
    fork = new_thread("t2", created=5.0, parent="t1", parent_turn=1)
    assert (
        kept.fork_thread(fork, turn(1, "f1", "t2", "edited"), new_run("f1", parent="t1-r1")).unwrap() is None
    )
    record = kept.thread("t2").unwrap()
    assert (record.turns, record.parent, record.parent_turn) == (2, "t1", 1)
    assert [(t.turn, t.run_id, t.message) for t in kept.turns("t2").unwrap()] == [
        (0, "t1-r0", "m0"),
        (1, "f1", "edited"),
    ]
    assert kept.so_far("t2", 0).unwrap() == b"after 0"
    assert (store.get("f1").unwrap().parent, store.get("f1").unwrap().parent_step) == ("t1-r1", 0)
    assert [t.thread_id for t in kept.turns_of_run("t1-r0").unwrap()] == ["t1", "t2"]
    assert kept.fork_thread(fork, turn(1, "f2", "t2"), new_run("f2")).failure() == ThreadExists(
        thread_id="t2"
    )
    assert store.get("f2").failure().describe() == "no stored run f2"
    assert [t.thread_id for t in kept.threads(ThreadQuery(parent="t1")).unwrap()] == ["t2"]


def _counts(store_db: str, run_ids: list[str]) -> list[int]:
    marks = ", ".join("?" * len(run_ids))
    return [
        int(
            str(
                execute(
                    store_db, f"SELECT count(*) FROM {table} WHERE {column} IN ({marks})", tuple(run_ids)
                )[0][0]
            )
        )
        for table, column in (("runs", "id"), ("journal", "run_id"), ("checkpoints", "run_id"))
    ]


def test_deleting_a_thread_deletes_its_turns_and_the_runs_no_other_thread_names(
    store: RunStore, store_db: str
) -> None:
    _three_turns(store, store_db)
    kept = threads(store)
    kept.fork_thread(
        new_thread("t2", parent="t1", parent_turn=2), turn(2, "f2", "t2"), new_run("f2", parent="t1-r2")
    ).unwrap()
    assert sorted(kept.delete_thread("t1").unwrap()) == ["t1-r2"]  # t2 holds turns 0 and 1
    assert kept.thread("t1").failure() == ThreadNotFound(thread_id="t1")
    assert kept.turns("t1").unwrap() == ()
    assert _counts(store_db, ["t1-r2"]) == [0, 0, 0]
    assert _counts(store_db, ["t1-r0", "t1-r1"]) == [2, 2, 2]
    assert sorted(kept.delete_thread("t2").unwrap()) == ["f2", "t1-r0", "t1-r1"]
    assert _counts(store_db, ["t1-r0", "t1-r1", "f2"]) == [0, 0, 0]
    assert kept.delete_thread("t2").failure() == ThreadNotFound(thread_id="t2")


def test_a_delete_that_fails_part_way_leaves_everything_as_it_was(store: RunStore, store_db: str) -> None:
    _three_turns(store, store_db)
    runs = ["t1-r0", "t1-r1", "t1-r2"]
    _refuse_deleting_turns(store_db)
    failed = threads(store).delete_thread("t1").failure()
    assert isinstance(failed, StoreFailure) and failed.operation == "delete thread"
    assert _counts(store_db, runs) == [3, 3, 3]  # the runs and journals it deleted first are back
    assert len(threads(store).turns("t1").unwrap()) == 3


def _refuse_deleting_turns(store_db: str) -> None:
    """A trigger that fails a delete of turns: the last statements of a thread's delete."""
    if store_db.startswith("postgresql://"):
        execute(
            store_db,
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'turns stay'; END $$",
        )
        execute(
            store_db,
            "CREATE TRIGGER refuse BEFORE DELETE ON thread_turns FOR EACH ROW EXECUTE FUNCTION refuse()",
        )
    else:
        execute(
            store_db,
            "CREATE TRIGGER refuse BEFORE DELETE ON thread_turns "
            "BEGIN SELECT RAISE(ABORT, 'turns stay'); END",
        )


MACHINES = [None, "app:A", "app:B", "app:none"]
PARENTS = [None, "", "p1", "p9"]


FILLED = [
    new_thread(
        f"t{n:02d}",
        created=float(n // 4),
        machine="app:A" if n % 3 else "app:B",
        parent="p1" if n % 5 == 0 else "",
    )
    for n in range(30)  # creation times repeat: ties are ordered by id
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    machine=st.sampled_from(MACHINES),
    parent=st.sampled_from(PARENTS),
    limit=st.integers(min_value=1, max_value=35),
    after=st.none()
    | st.tuples(st.integers(min_value=-1, max_value=8).map(float), st.sampled_from(["", "t13", "t7"])),
)
def test_a_page_of_threads_is_the_filtered_threads_after_the_cursor_newest_first(
    store: RunStore, machine: str | None, parent: str | None, limit: int, after: tuple[float, str] | None
) -> None:
    kept = threads(store)
    if not kept.threads(ThreadQuery()).unwrap():
        for thread in FILLED:
            kept.create_thread(thread).unwrap()
    every = sorted(FILLED, key=lambda t: (-t.created, t.thread_id))
    wanted = [
        t.thread_id
        for t in every
        if (machine is None or t.machine == machine)
        and (parent is None or t.parent == parent)
        and (after is None or t.created < after[0] or (t.created == after[0] and t.thread_id > after[1]))
    ][:limit]
    query = ThreadQuery(machine=machine, parent=parent, limit=limit, after=after)
    assert [t.thread_id for t in kept.threads(query).unwrap()] == wanted
