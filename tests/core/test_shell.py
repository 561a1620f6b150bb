"""The shell: suspension as a value, resume, async runs, performer lookup."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import attrs
from returns.result import Success

from agentsm_fn import (
    SUSPEND,
    Effect,
    Performers,
    Shell,
    Status,
    StepClock,
    arun,
    begin,
    replay,
    resume_run,
    run,
)
from agentsm_fn.core.compose import Nested
from tests.core.sample import Ask, Mem, S, sample_machine


def test_a_suspending_performer_returns_an_awaiting_snapshot() -> None:
    machine = sample_machine()
    result = run(machine, Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock()))
    snapshot = result.unwrap()
    assert snapshot.status is Status.AWAITING
    assert snapshot.pending == Ask()
    assert snapshot.state is S.WORK


def test_a_suspended_run_resumes_to_the_same_end_as_an_uninterrupted_one() -> None:
    machine = sample_machine()
    straight = run(machine, Mem(), Shell(Performers().on(Ask, lambda _e: 4), StepClock())).unwrap()
    paused = run(machine, Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock())).unwrap()
    finished = resume_run(machine, paused, 4, Shell(Performers().on(Ask, lambda _e: 4), StepClock(start=2.0)))
    assert finished.unwrap().memory == straight.memory
    assert finished.unwrap().state is S.DONE


def test_replay_of_a_resumed_run_needs_no_performer() -> None:
    machine = sample_machine()
    paused = run(machine, Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock())).unwrap()
    finished = resume_run(machine, paused, 7, Shell(Performers().on(Ask, lambda _e: 1), StepClock(start=5.0)))
    done = finished.unwrap()
    assert replay(machine, begin(machine, Mem()), done.journal) == Success(done)


def test_arun_awaits_async_performers() -> None:
    async def later(_effect: Ask) -> int:
        await asyncio.sleep(0)
        return 3

    shell = Shell(Performers().on_async(Ask, later), StepClock())
    done = asyncio.run(arun(sample_machine(), Mem(), shell)).unwrap()
    assert done.memory == Mem(n=3, total=9)


def test_arun_uses_sync_performers_too() -> None:
    shell = Shell(Performers().on(Ask, lambda _e: 1), StepClock())
    assert asyncio.run(arun(sample_machine(), Mem(), shell)).unwrap().memory == Mem(n=3, total=3)


def test_async_and_sync_runs_record_the_same_trace_and_journal() -> None:
    async def perform(_effect: Ask) -> int:
        return 2

    sync = run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: 2), StepClock()))
    asynchronous = asyncio.run(
        arun(sample_machine(), Mem(), Shell(Performers().on_async(Ask, perform), StepClock()))
    )
    assert sync == asynchronous


def test_performers_are_found_through_the_effect_class_hierarchy() -> None:
    @attrs.frozen
    class LoudAsk(Ask):
        pass

    performers = Performers().on(Ask, lambda _e: 9)
    finder = performers.find(LoudAsk())
    assert finder is not None and finder(LoudAsk()) == 9


def test_wrapper_effects_are_performed_as_their_underlying_effect() -> None:
    performers = Performers().on(Ask, lambda effect: 11 if isinstance(effect, Ask) else -1)
    wrapper = Nested(Ask(), S.WORK, Mem(), 0)
    finder = performers.find(wrapper)
    assert finder is not None and finder(wrapper) == 11


def test_merge_prefers_the_other_registry() -> None:
    merged = Performers().on(Ask, lambda _e: 1).merge(Performers().on(Ask, lambda _e: 2))
    finder = merged.find(Ask())
    assert finder is not None and finder(Ask()) == 2


def test_a_finished_snapshot_runs_no_further() -> None:
    machine = sample_machine()
    done = run(machine, Mem(), Shell(Performers().on(Ask, lambda _e: 1), StepClock())).unwrap()
    assert run(machine, done, Shell()) == Success(done)


def test_performers_keep_a_private_copy_of_the_tables_they_are_given() -> None:
    table: dict[type, Callable[[Effect[object]], object]] = {Ask: lambda _e: 1}
    performers = Performers(table)
    assert run(sample_machine(), Mem(), Shell(performers, StepClock())).unwrap().memory == Mem(n=3, total=3)
    table[Ask] = lambda _e: 100  # changing the caller's dict changes neither the registry nor its cache
    assert performers.sync[Ask](Ask()) == 1
    assert run(sample_machine(), Mem(), Shell(performers, StepClock())).unwrap().memory == Mem(n=3, total=3)


def test_runs_share_what_the_shell_found_to_perform_each_effect() -> None:
    performers = Performers().on(Ask, lambda _e: 2)
    run(sample_machine(), Mem(), Shell(performers, StepClock()))
    found = performers._run_cache[Ask]
    assert found is performers.sync[Ask]
    assert performers == Performers().on(Ask, performers.sync[Ask])  # the cache is not part of the value
    assert run(sample_machine(), Mem(), Shell(performers, StepClock())).unwrap().memory == Mem(n=3, total=6)


def test_arun_finds_an_async_performer_once_for_every_run() -> None:
    async def ask(_e: Ask) -> int:
        return 5

    performers = Performers().on_async(Ask, ask).on(Ask, lambda _e: 1)  # under arun the async one wins
    done = asyncio.run(arun(sample_machine(), Mem(), Shell(performers, StepClock()))).unwrap()
    assert done.memory == Mem(n=3, total=15)
    assert performers._async_cache[Ask] is performers.asynchronous[Ask]
    assert Ask not in performers._arun_cache  # the sync one is never consulted under arun
    assert run(sample_machine(), Mem(), Shell(performers, StepClock())).unwrap().memory == Mem(n=3, total=3)
