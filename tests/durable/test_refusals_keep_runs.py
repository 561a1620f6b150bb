"""A refused resume (finished run, changed machine) leaves the stored run exactly as it was."""

from __future__ import annotations

import enum
from typing import Literal

import attrs
from returns.result import Failure, Result

from agentsm_fn.core import Fault, Perform, effectful, emit, perform, pure
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import (
    AnswerRefused,
    Diverged,
    Durable,
    MachineChanged,
    NotResumable,
    RunStatus,
    RunStore,
)
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.durable.operations.check import check_runs
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.shell import Performers, Shell, StepClock
from tests.durable.machines import DURABLE_ORDERS, DURABLE_ORDERS_V2, ORDERS, E, Lookup, Order, S, priced


class T(enum.Enum):
    WORK = "work"
    TIDY = "tidy"
    DONE = "done"


class V(enum.Enum):
    LOOKED = "looked"
    TIDIED = "tidied"


def look(memory: int) -> Result[Perform[int, int], Fault]:
    return perform(Lookup(memory), memory)


def looked(memory: int, price: int) -> Result[tuple[Literal[V.LOOKED], int], Fault]:
    return emit(V.LOOKED, memory + price)


def tidy(memory: int) -> Result[tuple[Literal[V.TIDIED], int], Fault]:
    return emit(V.TIDIED, memory * 2)


TIDY_MACHINE: Machine[T, V, int] = define_machine(
    name="tidy",
    states=T,
    events=V,
    initial=T.WORK,
    terminals={T.DONE},
    table={(T.WORK, V.LOOKED): T.TIDY, (T.TIDY, V.TIDIED): T.DONE},
    handlers={T.WORK: effectful(look, looked), T.TIDY: pure(tidy)},
)
TIDY = Durable(
    name="tests.durable.test_refusals_keep_runs:TIDY",
    machine=TIDY_MACHINE,
    shell=lambda: Shell(Performers().on(Lookup, lambda effect: 5), StepClock(start=1.0)),
)


def test_resuming_a_finished_run_is_refused_and_keeps_its_last_pure_steps(store: RunStore) -> None:
    done = TIDY.start(store, 1, run_id="t-1").unwrap()
    assert done.finished and done.snapshot.memory == 12
    before = replay_stored(store, TIDY_MACHINE, "t-1").unwrap()
    assert before.finished and before.steps == 2
    refused = TIDY.resume(store, "t-1")
    assert isinstance(refused, Failure) and isinstance(refused.failure(), NotResumable)
    after = replay_stored(store, TIDY_MACHINE, "t-1").unwrap()
    assert (after.state, after.memory, after.steps, after.finished) == (T.DONE, 12, 2, True)
    assert len(after.trace) == len(before.trace)
    assert store.get("t-1").unwrap().status is RunStatus.FINISHED


def test_a_refused_changed_machine_leaves_a_ready_run_ready(store: RunStore) -> None:
    waiting = DURABLE_ORDERS.start(store, Order(items=1, approval_over=0), run_id="o-1").unwrap()
    assert not waiting.finished
    answer(store, "o-1", 2, True).unwrap()
    record = store.get("o-1").unwrap()
    assert record.status is RunStatus.READY
    refused = DURABLE_ORDERS_V2.resume(store, "o-1")
    assert isinstance(refused, Failure) and isinstance(refused.failure(), MachineChanged)
    kept = store.get("o-1").unwrap()
    assert attrs.evolve(kept, updated=record.updated) == record
    assert DURABLE_ORDERS.resume(store, "o-1").unwrap().finished


def ask_another_price(order: Order) -> Result[Perform[int, Order], Fault]:
    return perform(Lookup(order.next_item + 100), order)


ORDERS_ASKING_ANOTHER: Machine[S, E, Order] = attrs.evolve(
    ORDERS, handlers={**ORDERS.handlers, S.PRICING: effectful(ask_another_price, priced)}
)
DIVERGING = Durable(name=DURABLE_ORDERS.name, machine=ORDERS_ASKING_ANOTHER, shell=DURABLE_ORDERS.shell)


def test_a_diverging_changed_machine_leaves_the_record_checkable_against_the_old_one(store: RunStore) -> None:
    waiting = DURABLE_ORDERS.start(store, Order(items=1, approval_over=0), run_id="o-2").unwrap()
    assert not waiting.finished
    record = store.get("o-2").unwrap()
    diverged = DIVERGING.resume(store, "o-2", allow_changed=True)
    assert isinstance(diverged, Failure) and isinstance(diverged.failure(), Diverged)
    kept = store.get("o-2").unwrap()
    assert (kept.state, kept.steps, kept.effects, kept.fingerprint) == (
        record.state,
        record.steps,
        record.effects,
        record.fingerprint,
    )
    assert "diverges" in kept.reason
    verdicts = check_runs(store, ORDERS, DURABLE_ORDERS.name).unwrap()
    assert [v.ok for v in verdicts] == [True], [v.describe() for v in verdicts]
    answer(store, "o-2", 2, True).unwrap()  # the old machine still takes it up
    assert DURABLE_ORDERS.resume(store, "o-2").unwrap().finished


def test_a_finished_run_waits_for_nothing(store: RunStore) -> None:
    DURABLE_ORDERS.start(store, Order(items=1, approval_over=0), run_id="o-2").unwrap()
    finished = DURABLE_ORDERS_V2.resume(store, "o-2", allow_changed=True).unwrap()  # v2 never asks
    assert finished.finished
    assert pending(store).unwrap() == ()
    refused = answer(store, "o-2", 2, True)
    assert isinstance(refused, Failure) and isinstance(refused.failure(), AnswerRefused)
    assert "finished" in refused.failure().why
    assert store.journal("o-2").unwrap()[2].outcome is None
