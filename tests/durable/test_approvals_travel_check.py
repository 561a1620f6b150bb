"""Approvals through the store, time travel, forks, the check of a changed machine, recovery: every store."""

from __future__ import annotations

import threading
from pathlib import Path

import attrs
from returns.result import Failure, Success

from agentsm_fn.core import Status
from agentsm_fn.durable import (
    AnswerRefusal,
    AnswerRefused,
    MachineChanged,
    RunNotFound,
    RunStatus,
    RunStore,
    open_store,
)
from agentsm_fn.durable.operations.answers import answer, pending, waiting_effect, waiting_on
from agentsm_fn.durable.operations.check import check_runs
from agentsm_fn.durable.operations.forks import fork
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.shell import Shell, StepClock
from tests.durable.machines import DURABLE_ORDERS, ORDERS, ORDERS_V2, AskApproval, E, Order, S, performers


def waiting_run(store: RunStore) -> str:
    stored = DURABLE_ORDERS.start(store, Order(items=2, approval_over=0)).unwrap()
    assert stored.snapshot.status is Status.AWAITING
    return stored.run_id


def _refusal(result: object) -> AnswerRefusal:
    assert isinstance(result, Failure)
    refused = result.failure()
    assert isinstance(refused, AnswerRefused)
    return refused.kind


def test_each_refused_answer_says_its_kind_and_writes_nothing(store: RunStore) -> None:
    run_id = waiting_run(store)
    assert _refusal(answer(store, run_id, 4, "not a bool")) is AnswerRefusal.WRONG_TYPE
    assert _refusal(answer(store, run_id, 99, True)) is AnswerRefusal.NOTHING_WAITS
    assert _refusal(answer(store, run_id, 0, True)) is AnswerRefusal.NOTHING_WAITS  # answered by a performer
    assert _refusal(store.answer(run_id, 99, b"", 0.0)) is AnswerRefusal.NOTHING_WAITS
    assert store.get(run_id).unwrap().status is RunStatus.WAITING  # none of them was written
    assert store.answer(run_id, 4, b"\xc3", 1.0).unwrap() is None  # the store keeps the bytes as given
    assert _refusal(store.answer(run_id, 4, b"\xc3", 2.0)) is AnswerRefusal.ANSWERED_ALREADY


def test_a_waiting_run_is_listed_answered_once_and_then_finishes(store: RunStore) -> None:
    run_id = waiting_run(store)
    (waiting,) = pending(store).unwrap()
    assert (waiting.run_id, waiting.seq, waiting.effect) == (run_id, 4, AskApproval(21))
    assert answer(store, run_id, 4, True).unwrap() is None
    again = answer(store, run_id, 4, False)
    assert isinstance(again, Failure) and isinstance(again.failure(), AnswerRefused)
    assert "answered already" in again.failure().describe()
    assert again.failure().kind is AnswerRefusal.ANSWERED_ALREADY
    assert store.get(run_id).unwrap().status is RunStatus.READY
    done = DURABLE_ORDERS.resume(store, run_id).unwrap()
    assert done.finished and done.snapshot.memory.approved is True
    assert pending(store).unwrap() == ()


def test_one_runs_waiting_effect_is_what_pending_lists_for_it_and_none_once_answered(store: RunStore) -> None:
    run_id, other = waiting_run(store), waiting_run(store)
    listed = {(p.run_id, p.seq): p for p in pending(store).unwrap()}
    for run in (run_id, other):
        assert waiting_effect(store, run, 4).unwrap() == listed[(run, 4)]
    assert waiting_effect(store, run_id, 3).unwrap() is None  # performed, never waited
    assert waiting_effect(store, run_id, 99).unwrap() is None  # no such entry
    assert isinstance(waiting_effect(store, "no-such-run", 4).failure(), RunNotFound)
    answer(store, run_id, 4, True).unwrap()
    assert waiting_effect(store, run_id, 4).unwrap() is None  # answered already
    assert waiting_effect(store, other, 4).unwrap() == listed[(other, 4)]
    DURABLE_ORDERS.resume(store, run_id).unwrap()
    assert waiting_effect(store, run_id, 4).unwrap() is None


def test_a_waiting_runs_effect_is_found_from_its_record_as_pending_lists_it(store: RunStore) -> None:
    run_id, other = waiting_run(store), waiting_run(store)
    listed = {p.run_id: p for p in pending(store).unwrap()}
    for run in (run_id, other):
        record = store.get(run).unwrap()
        assert record.effects == 4 and waiting_on(store, record).unwrap() == listed[run]
        # a record whose count does not lead to the waiting entry: the whole journal is read
        assert waiting_on(store, attrs.evolve(record, effects=99)).unwrap() == listed[run]
    answer(store, run_id, 4, True).unwrap()
    assert waiting_on(store, store.get(run_id).unwrap()).unwrap() is None  # READY now
    DURABLE_ORDERS.resume(store, run_id).unwrap()
    assert waiting_on(store, store.get(run_id).unwrap()).unwrap() is None  # finished


def test_an_answer_of_the_wrong_type_is_refused_and_nothing_is_written(store: RunStore) -> None:
    run_id = waiting_run(store)
    refused = answer(store, run_id, 4, "yes please")
    assert isinstance(refused, Failure) and "does not accept a str" in refused.failure().describe()
    assert len(pending(store).unwrap()) == 1


def test_two_connections_answering_at_once_give_one_success_and_one_refusal(
    store: RunStore, store_db: str
) -> None:
    run_id = waiting_run(store)
    results: list[object] = []
    barrier = threading.Barrier(2)

    def answer_from_own_connection(value: bool) -> None:
        own = open_store(store_db).unwrap()
        barrier.wait()
        results.append(answer(own, run_id, 4, value))
        own.close()

    threads = [threading.Thread(target=answer_from_own_connection, args=(v,)) for v in (True, False)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(isinstance(r, Success) for r in results) == [False, True]


def test_time_travel_shows_memory_and_trace_at_any_step_without_performing(
    store: RunStore, tmp_path: Path
) -> None:
    counts = tmp_path / "counts.txt"
    durable = attrs.evolve(DURABLE_ORDERS, shell=lambda: Shell(performers(counts), StepClock()))
    run_id = durable.start(store, Order(items=3)).unwrap().run_id
    performed = counts.read_text().count("\n")
    final = replay_stored(store, ORDERS, run_id).unwrap()
    assert final.finished and final.memory.total == 33
    at_three = replay_stored(store, ORDERS, run_id, until_step=3).unwrap()
    assert (at_three.steps, at_three.state, at_three.memory.next_item) == (3, S.PRICING, 1)
    assert [e.step for e in at_three.trace if e.event is not None][-1] == 3
    assert counts.read_text().count("\n") == performed  # zero tool executions


def test_a_fork_starts_a_new_run_from_a_step_with_changed_memory(store: RunStore) -> None:
    run_id = DURABLE_ORDERS.start(store, Order(items=3)).unwrap().run_id
    forked = fork(
        store, ORDERS, run_id, 3, DURABLE_ORDERS, change=lambda o: attrs.evolve(o, items=5)
    ).unwrap()
    assert forked.finished and forked.snapshot.memory.next_item == 5
    record = store.get(forked.run_id).unwrap()
    assert (record.parent, record.parent_step) == (run_id, 3)
    assert replay_stored(store, ORDERS, forked.run_id).unwrap().memory == forked.snapshot.memory


def test_a_changed_machine_is_checked_against_stored_runs_and_never_resumed_silently(
    store: RunStore,
) -> None:
    run_id = waiting_run(store)
    changed = ORDERS.extend(rows={(S.CHARGING, E.LARGE): S.DONE}, remove_rows=[(S.CHARGING, E.LARGE)])
    (verdict,) = check_runs(store, changed, DURABLE_ORDERS.name).unwrap()
    assert verdict.changed and not verdict.ok
    assert verdict.step == 6 and "where the machine is finished" in verdict.detail
    (gone,) = check_runs(store, ORDERS_V2, DURABLE_ORDERS.name).unwrap()
    assert not gone.ok and "stopped in state APPROVING, which the machine no longer has" in gone.detail
    assert answer(store, run_id, 4, True).unwrap() is None
    refused = attrs.evolve(DURABLE_ORDERS, machine=changed).resume(store, run_id)
    assert isinstance(refused, Failure) and isinstance(refused.failure(), MachineChanged)
    (same,) = check_runs(store, ORDERS, DURABLE_ORDERS.name).unwrap()
    assert same.ok and not same.changed


def test_recover_resumes_ready_runs_and_leaves_waiting_ones(store: RunStore) -> None:
    run_id = waiting_run(store)
    other = waiting_run(store)
    answer(store, run_id, 4, True).unwrap()
    (recovered,) = recover(store, [DURABLE_ORDERS]).unwrap()
    assert recovered.run_id == run_id and recovered.result.unwrap().finished
    assert store.get(other).unwrap().status is RunStatus.WAITING


def test_a_run_resumed_by_a_changed_machine_that_replays_it_takes_its_fingerprint(store: RunStore) -> None:
    run_id = waiting_run(store)
    renamed = ORDERS.extend(rows={})  # the same graph
    assert answer(store, run_id, 4, True).unwrap() is None
    changed = attrs.evolve(DURABLE_ORDERS, machine=attrs.evolve(renamed, name="orders-v2"))
    assert isinstance(changed.resume(store, run_id).failure(), MachineChanged)
    assert changed.resume(store, run_id, allow_changed=True).unwrap().finished
    assert store.get(run_id).unwrap().fingerprint == changed.fingerprint
