"""Every store keeps the same promises: one suite, run against SQLite and PostgreSQL (``store`` fixture).

Ownership fences every write, leases decide who may take a run over, a waiting effect takes
exactly one answer, checkpoints and trace contexts are kept, corrupt stored data is a typed
error, and another program's database is refused. A new store is one fixture away.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from returns.result import Failure, Success

from agentsm_fn.durable import (
    AnswerRefused,
    Checkpoint,
    CodecFailure,
    CodecFailureKind,
    NewRun,
    RunBusy,
    RunRecord,
    RunStatus,
    RunStore,
    StoreFailure,
    TraceContexts,
    open_store,
)
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.stores.protocol.owners import this_owner
from tests.durable.machines import DURABLE_ORDERS, Order
from tests.durable.stores import entry, execute

LOST = "elsewhere:1"
"""The process a run was taken from (or that holds it): another host, so only its lease counts."""


POINT = Checkpoint(seq=1, state="S", steps=1, memory=b"m", pending=b"p")


def new_run(run_id: str = "r1", owner: str = LOST) -> NewRun:
    return NewRun(
        run_id=run_id, machine="m:M", fingerprint="f", memory=b"m", created=1.0, owner=owner, lease_until=1e12
    )


def taken_over(store: RunStore, store_db: str, started: tuple[int, ...] = ()) -> None:
    """Run r1, written by LOST (``started`` entries begun), then taken over by this process."""
    assert store.create(new_run()).unwrap() is None
    for seq in started:
        assert store.start_effect("r1", entry(seq), LOST).unwrap() is None
    execute(store_db, "UPDATE runs SET lease_until = 0 WHERE id = 'r1'")  # LOST's lease ran out
    assert store.claim("r1", this_owner(), now=5.0, until=1e12).unwrap() is None


def test_a_process_that_lost_its_run_cannot_write_through_any_journal_write(
    store: RunStore, store_db: str
) -> None:
    taken_over(store, store_db, started=(0, 1))
    finished = RunRecord(
        run_id="r1", machine="m:M", fingerprint="", status=RunStatus.FINISHED, created=1, updated=9
    )
    refused = {
        "start_effect": store.start_effect("r1", entry(2), LOST),
        "commit (insert)": store.commit("r1", entry(2, b"o"), LOST, started=False),
        "commit (started)": store.commit("r1", entry(0, b"o"), LOST, started=True),
        "wait (insert)": store.wait("r1", entry(2, waiting=True), LOST, started=False),
        "wait (started)": store.wait("r1", entry(1, waiting=True), LOST, started=True),
        "acommit": asyncio.run(store.acommit("r1", entry(0, b"o"), LOST, started=True)),
        "astart_effect": asyncio.run(store.astart_effect("r1", entry(2), LOST)),
        "start_effect (done)": store.start_effect("r1", entry(2), LOST, done=entry(1, b"o")),
        "astart_effect (done)": asyncio.run(store.astart_effect("r1", entry(2), LOST, done=entry(1, b"o"))),
        "stop (done)": store.stop("r1", finished, (), LOST, done=entry(1, b"o")),
        "forget": store.forget("r1", 0, keep_started=False, owner=LOST),
        "save_checkpoint": store.save_checkpoint("r1", POINT, LOST),
    }
    assert {name: type(done.failure()) for name, done in refused.items() if isinstance(done, Failure)} == {
        name: RunBusy for name in refused
    }
    assert store.journal("r1").unwrap() == (entry(0), entry(1))  # untouched: no outcome, nothing waits
    assert store.waiting().unwrap() == () and store.checkpoint("r1").unwrap() is None
    record = RunRecord(
        run_id="r1", machine="m:M", fingerprint="", status=RunStatus.FINISHED, created=1, updated=9
    )
    assert store.stop("r1", record, (), LOST).unwrap() is None  # a stop of the lost owner changes nothing
    assert store.get("r1").unwrap().status is RunStatus.RUNNING
    assert store.get("r1").unwrap().owner == this_owner()


def test_the_owner_writes_and_a_second_writer_of_an_entry_is_refused(store: RunStore) -> None:
    assert store.start_effect("r1", entry(0), LOST, create=new_run()).unwrap() is None
    assert store.commit("r1", entry(0, b"o"), LOST, started=True).unwrap() is None
    again = store.commit("r1", entry(0, b"p"), LOST, started=False)
    assert isinstance(again.failure(), RunBusy) and "wrote this entry first" in again.failure().describe()
    twice = store.commit("r2", entry(0, b"o"), LOST, started=False, create=new_run("r1"))
    assert (
        isinstance(twice.failure(), StoreFailure)
        and "a run with this id exists" in twice.failure().describe()
    )
    assert store.journal("r1").unwrap() == (entry(0, b"o"),)
    assert store.forget("r1", 0, keep_started=True, owner=LOST).unwrap() is None  # the owner may
    assert store.journal("r1").unwrap() == (entry(0),)
    assert store.runs().unwrap()[0].run_id == "r1" and len(store.runs().unwrap()) == 1


def test_a_held_outcome_completes_with_the_next_write_or_nothing_is_written(store: RunStore) -> None:
    assert store.start_effect("r1", entry(0), LOST, create=new_run()).unwrap() is None
    assert store.start_effect("r1", entry(1), LOST, done=entry(0, b"o")).unwrap() is None
    assert store.journal("r1").unwrap() == (entry(0, b"o"), entry(1))
    finished = RunRecord(
        run_id="r1", machine="m:M", fingerprint="", status=RunStatus.FINISHED, created=1, updated=9
    )
    for done in (entry(0, b"x"), entry(7, b"x")):  # already completed; never started
        refused = {
            "start_effect": store.start_effect("r1", entry(2), LOST, done=done),
            "astart_effect": asyncio.run(store.astart_effect("r1", entry(2), LOST, done=done)),
            "stop": store.stop("r1", finished, (), LOST, done=done),
        }
        assert {name: type(result.failure()) for name, result in refused.items()} == {
            name: RunBusy for name in refused
        }
    assert store.journal("r1").unwrap() == (entry(0, b"o"), entry(1))  # nothing written
    assert store.get("r1").unwrap().status is RunStatus.RUNNING
    assert store.stop("r1", finished, (), LOST, done=entry(1, b"p")).unwrap() is None
    assert store.journal("r1").unwrap() == (entry(0, b"o"), entry(1, b"p"))
    assert store.get("r1").unwrap().status is RunStatus.FINISHED


def test_a_waiting_effect_takes_exactly_one_answer_even_from_concurrent_processes(
    store: RunStore, store_db: str
) -> None:
    store.wait("r1", entry(0, waiting=True), LOST, started=False, create=new_run()).unwrap()
    record = RunRecord(
        run_id="r1", machine="m:M", fingerprint="", status=RunStatus.WAITING, created=1, updated=2
    )
    store.stop("r1", record, (3.0,), LOST).unwrap()
    assert [(run_id, row.seq) for run_id, row in store.waiting().unwrap()] == [("r1", 0)]
    barrier, results = threading.Barrier(8), []

    def answer(value: bytes) -> None:
        own = open_store(store_db).unwrap()
        barrier.wait()
        results.append(own.answer("r1", 0, value, 4.0))
        own.close()

    threads = [threading.Thread(target=answer, args=(bytes([n]),)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    taken = [r for r in results if isinstance(r, Success)]
    assert len(results) == 8 and len(taken) == 1
    assert all("answered already" in r.failure().describe() for r in results if isinstance(r, Failure))
    assert store.get("r1").unwrap().status is RunStatus.READY and store.waiting().unwrap() == ()
    assert store.tail("r1").unwrap() == (3.0,)
    refused = store.answer("r1", 7, b"x", 4.0).failure()
    assert isinstance(refused, AnswerRefused) and "has no entry 7" in refused.describe()


def test_checkpoints_are_replaced_and_trace_contexts_keep_the_first(store: RunStore) -> None:
    store.create(new_run()).unwrap()
    assert store.checkpoint("r1").unwrap() is None
    for seq in (2, 5):
        store.save_checkpoint(
            "r1", Checkpoint(seq=seq, state="S", steps=seq, memory=b"m", pending=b"p"), LOST
        ).unwrap()
    assert store.checkpoint("r1").unwrap() == Checkpoint(seq=5, state="S", steps=5, memory=b"m", pending=b"p")
    assert isinstance(store, TraceContexts)
    store.save_trace_context("r1", {"traceparent": "first"}).unwrap()
    store.save_trace_context("r1", {"traceparent": "second"}).unwrap()
    assert dict(store.trace_context("r1").unwrap()) == {"traceparent": "first"}
    assert dict(store.trace_context("r2").unwrap()) == {}


def test_a_run_owned_by_a_live_process_is_busy_and_not_recovered(store: RunStore, store_db: str) -> None:
    run_id = DURABLE_ORDERS.start(store, Order(items=1, approval_over=0)).unwrap().run_id
    execute(
        store_db,
        "UPDATE runs SET status = 'running', owner = ?, lease_until = 1e12 WHERE id = ?",
        (LOST, run_id),
    )
    busy = DURABLE_ORDERS.resume(store, run_id)
    assert isinstance(busy, Failure) and isinstance(busy.failure(), RunBusy)
    assert recover(store, [DURABLE_ORDERS], clock=lambda: 0.0).unwrap() == ()


def test_a_run_whose_owner_died_is_taken_over(store: RunStore, store_db: str) -> None:
    run_id = DURABLE_ORDERS.start(store, Order(items=1, approval_over=0)).unwrap().run_id
    dead = this_owner().rpartition(":")[0] + ":999999999"
    execute(
        store_db,
        "UPDATE runs SET status = 'running', owner = ?, lease_until = 1e12 WHERE id = ?",
        (dead, run_id),
    )
    (recovered,) = recover(store, [DURABLE_ORDERS]).unwrap()
    assert recovered.run_id == run_id
    assert store.get(run_id).unwrap().status is RunStatus.WAITING  # it went on to its approval again


def test_a_corrupt_outcome_is_a_codec_failure_naming_the_run_and_the_entry(
    store: RunStore, store_db: str
) -> None:
    run_id = DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id="r-7").unwrap().run_id
    execute(store_db, "DELETE FROM checkpoints")
    execute(store_db, "UPDATE journal SET outcome = ? WHERE run_id = ? AND seq = 2", (b"\xc1", run_id))
    execute(store_db, "UPDATE journal SET outcome = ? WHERE run_id = ? AND seq = 4", (b"\xc3", run_id))
    failure = DURABLE_ORDERS.resume(store, run_id).failure()
    assert isinstance(failure, CodecFailure) and failure.kind is CodecFailureKind.CORRUPT
    assert failure.describe().startswith("run r-7, journal[2].outcome: corrupt")


@pytest.mark.parametrize(
    ("sql", "read", "said"),
    [
        ("UPDATE journal SET ticks = ?", "journal", "journal[0].ticks: corrupt: 3 bytes"),
        ("UPDATE runs SET tail = ?", "tail", "tail: corrupt: 3 bytes"),
        ("UPDATE runs SET status = 'lost' WHERE ? IS NOT NULL", "get", "status: corrupt: 'lost'"),
        (
            "UPDATE trace_contexts SET carrier = '[1]' WHERE ? IS NOT NULL",
            "trace_context",
            "not a JSON object",
        ),
    ],
)
def test_corrupt_stored_columns_are_store_failures_that_say_which(
    store: RunStore, store_db: str, sql: str, read: str, said: str
) -> None:
    store.start_effect("r1", entry(0), LOST, create=new_run()).unwrap()
    assert isinstance(store, TraceContexts)
    store.save_trace_context("r1", {"traceparent": "t"}).unwrap()
    execute(store_db, sql, (b"abc",))
    failure = getattr(store, read)("r1").failure()
    assert isinstance(failure, StoreFailure) and said in failure.describe()


def test_another_programs_database_is_refused_and_left_as_it_was(store_db: str) -> None:
    execute(store_db, "CREATE TABLE meta (name TEXT, value TEXT)")
    execute(store_db, "CREATE TABLE orders (id INTEGER)")
    refused = open_store(store_db).failure()
    assert "is not a run store: it holds the tables meta, orders and no store schema" in refused.describe()
    assert execute(store_db, "SELECT COUNT(*) FROM meta") == [(0,)]


def test_a_store_of_a_newer_schema_is_refused(store_db: str) -> None:
    open_store(store_db).unwrap().close()
    execute(store_db, "UPDATE meta SET value = '99' WHERE key = 'schema'")
    assert "schema 99" in open_store(store_db).failure().describe()
