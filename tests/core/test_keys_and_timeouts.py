"""Idempotency keys (EffectKey, effect_key, keyed) and performer timeouts."""

from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn import (
    EffectFailure,
    EffectKey,
    FailureKind,
    Performers,
    Shell,
    StepClock,
    arun,
    effect_key,
    embed,
    keyed,
    run,
)
from tests.core.sample import Ask, E, Mem, S, routed_sample_machine, sample_machine


@given(st.text(max_size=20), st.integers(0, 10**6))
def test_a_key_reads_as_run_id_colon_seq(run_id: str, seq: int) -> None:
    assert str(EffectKey(run_id, seq)) == f"{run_id}:{seq}"


def test_keyed_sets_the_key_inside_the_block_only() -> None:
    assert effect_key() is None
    with keyed(EffectKey("outer", 1)):
        with keyed(EffectKey("inner", 2)):
            assert effect_key() == EffectKey("inner", 2)
        assert effect_key() == EffectKey("outer", 1)
    assert effect_key() is None


def test_concurrent_async_runs_each_see_their_own_key() -> None:
    seen: dict[str, list[str]] = {"a": [], "b": []}

    async def answer(effect: Ask) -> int:
        await asyncio.sleep(0)  # let the other run interleave
        key = effect_key()
        assert key is not None
        seen[key.run_id].append(str(key))
        return 1

    async def one(run_id: str) -> None:
        with keyed(EffectKey(run_id, 0)):
            done = await arun(sample_machine(), Mem(), Shell(Performers().on_async(Ask, answer), StepClock()))
        assert done.unwrap().memory == Mem(n=3, total=3)

    async def both() -> None:
        await asyncio.gather(one("a"), one("b"))

    asyncio.run(both())
    assert seen == {"a": ["a:0"] * 3, "b": ["b:0"] * 3}


def test_a_timed_sync_performer_runs_in_a_thread_that_sees_the_key() -> None:
    threads: list[str] = []

    def answer(effect: Ask) -> int:
        threads.append(threading.current_thread().name)
        key = effect_key()
        return 0 if key is None else key.seq

    with keyed(EffectKey("r", 7)):
        done = run(sample_machine(), Mem(), Shell(Performers().on(Ask, answer, timeout=30), StepClock()))
    assert done.unwrap().memory == Mem(n=3, total=21)
    assert threads == ["agentsm-performer"] * 3


def test_a_performers_own_timeout_error_is_raised_not_timed_out() -> None:
    machine = routed_sample_machine()

    def own(effect: Ask) -> int:
        raise TimeoutError("the upstream said so")

    async def own_async(effect: Ask) -> int:
        raise TimeoutError("the upstream said so")

    for result in (
        run(machine, Mem(), Shell(Performers().on(Ask, own, timeout=30), StepClock())),
        asyncio.run(
            arun(machine, Mem(), Shell(Performers().on_async(Ask, own_async, timeout=30), StepClock()))
        ),
    ):
        failure = result.unwrap().journal.outcomes[-1]
        assert isinstance(failure, EffectFailure) and failure.kind is FailureKind.RAISED


def test_an_embedded_machines_effect_keeps_its_performers_timeout() -> None:
    inner = routed_sample_machine()
    outer = sample_machine().extend(
        handlers={S.WORK: embed(inner, enter=lambda m: m, leave=lambda m, n: n, exits={S.DONE: E.FINISHED})}
    )
    never = threading.Event()
    hanging = Performers().on(Ask, lambda effect: 1 if never.wait() else 0, timeout=0.05)
    for result in (
        run(outer, Mem(), Shell(hanging, StepClock())),
        asyncio.run(arun(outer, Mem(), Shell(hanging, StepClock()))),
    ):
        done = result.unwrap()
        assert done.state is S.DONE and done.journal.outcomes[-1] == EffectFailure.timed_out(
            "Ask (in WORK)", 0.05
        )


@pytest.mark.parametrize("seconds", [0, -1.0, float("nan")])
def test_a_timeout_must_be_positive(seconds: float) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"):
        Performers().on(Ask, lambda effect: 1, timeout=seconds)
    with pytest.raises(ValueError, match="positive number of seconds"):
        Performers().on_async(Ask, lambda effect: asyncio.sleep(0, 1), timeout=seconds)
