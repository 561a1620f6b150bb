"""Every store records who holds a thread's conversation alike: SQLite and PostgreSQL (``store`` fixture).

A turn whose run handed the conversation to another agent names that agent (kept with the
thread so far, the first value kept stays); a turn with none is held by its run's program; a
fork's earlier turns are the parent's runs, so they keep their holders; a delete removes the
holders of the runs it removes; an older store gains the table when opened.
"""

from __future__ import annotations

from agentsm_fn.durable import RunStore, open_store
from tests.durable.stores import execute
from tests.durable.test_thread_store import new_run, new_thread, threads, turn


def _holders(store: RunStore, thread_id: str = "t1") -> list[str]:
    return [row.holder for row in threads(store).turns(thread_id).unwrap()]


def test_a_turn_that_handed_off_names_its_holder_and_the_thread_shows_it(store: RunStore) -> None:
    kept = threads(store)
    kept.create_thread(new_thread()).unwrap()
    assert kept.thread("t1").unwrap().holder == "app:CHAT"  # no turn yet: the thread's machine
    kept.take_turn(turn(0, "r0"), new_run("r0")).unwrap()
    kept.keep_so_far("r0", b"after 0").unwrap()
    kept.take_turn(turn(1, "r1"), new_run("r1")).unwrap()
    assert _holders(store) == ["app:CHAT", "app:CHAT"]  # its own run's program
    kept.keep_so_far("r1", b"after 1", holder="app:REFUNDS").unwrap()
    kept.keep_so_far("r1", b"again", holder="app:OTHER").unwrap()  # the first kept stays
    assert _holders(store) == ["app:CHAT", "app:REFUNDS"]
    assert kept.thread("t1").unwrap().holder == "app:REFUNDS"
    assert kept.so_far("t1", 1).unwrap() == b"after 1"
    kept.take_turn(turn(2, "r2"), None).unwrap()  # queued: no run, no holder yet
    assert _holders(store)[2] == ""
    assert kept.thread("t1").unwrap().holder == "app:CHAT"


def test_a_fork_keeps_the_holders_of_its_earlier_turns_and_a_delete_drops_them(
    store: RunStore, store_db: str
) -> None:
    kept = threads(store)
    kept.create_thread(new_thread()).unwrap()
    for number in range(2):
        kept.take_turn(turn(number, f"r{number}"), new_run(f"r{number}")).unwrap()
        kept.keep_so_far(f"r{number}", b"so far", holder=f"app:AGENT{number}").unwrap()
    fork = new_thread("t2", created=5.0, parent="t1", parent_turn=1)
    kept.fork_thread(fork, turn(1, "f1", "t2"), new_run("f1", parent="r1")).unwrap()
    assert _holders(store, "t2") == ["app:AGENT0", "app:CHAT"]
    kept.delete_thread("t1").unwrap()
    assert execute(store_db, "SELECT run_id FROM turn_holders ORDER BY run_id") == [("r0",)]
    kept.delete_thread("t2").unwrap()
    assert execute(store_db, "SELECT run_id FROM turn_holders") == []


def test_an_older_store_gains_the_holders_table(store: RunStore, store_db: str) -> None:
    execute(store_db, "DROP TABLE turn_holders")
    reopened = open_store(store_db).unwrap()
    try:
        kept = threads(reopened)
        kept.create_thread(new_thread()).unwrap()
        kept.take_turn(turn(0, "r0"), new_run("r0")).unwrap()
        kept.keep_so_far("r0", b"so far", holder="app:REFUNDS").unwrap()
        assert _holders(reopened) == ["app:REFUNDS"]
    finally:
        reopened.close()
