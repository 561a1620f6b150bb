"""A watch's optional ``memory_after``: the memory after every transition, in order, however a run goes."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar, cast

import attrs
import pytest
from hypothesis import given, settings
from returns.result import Failure, Success

from agentsm_fn import (
    SUSPEND,
    Machine,
    Performers,
    Shell,
    Snapshot,
    Status,
    StepClock,
    arun,
    begin,
    resume,
    resume_run,
    run,
    step,
)
from agentsm_fn.agents.react import AgentMemory, ReactCompleted
from agentsm_fn.core.observe import RunStart
from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell import aresume_run
from agentsm_fn.shell.observers import Both
from agentsm_fn.shell.observing import Watching
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from tests.core.machines import RandomMachine, random_machines
from tests.core.sample import Ask, Mem, S, sample_machine
from tests.core.test_observing import Recorder
from tests.durable.machines import DURABLE_ORDERS, Order


@attrs.define
class Memories(Recorder):
    """A recorder that asks for the memory after each transition (logged as ``memory STEP``)."""

    memories: list[tuple[int, object]] = attrs.field(factory=list)

    def memory_after(self, step: int, memory: object) -> None:
        self.memories.append((step, memory))
        self.log.append(f"memory {step}")


StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def stepped(
    machine: Machine[StateT, EventT, MemoryT], start: MemoryT, outcomes: Sequence[object]
) -> list[tuple[int, object]]:
    """The memory after each transition, by the engine's reference step and resume fed ``outcomes``."""
    snapshot: Snapshot[StateT, MemoryT] = begin(machine, start)
    fed = iter(outcomes)
    seen: list[tuple[int, object]] = []
    while snapshot.status is not Status.FINISHED:
        if snapshot.status is Status.READY:
            moved = step(machine, snapshot, 0.0)
        else:
            outcome = next(fed, SUSPEND)
            if outcome is SUSPEND:
                break
            moved = resume(machine, snapshot, outcome, 0.0)
        if isinstance(moved, Failure):
            break
        after = moved.unwrap()
        if after.steps != snapshot.steps:
            seen.append((after.steps, after.memory))
        snapshot = after
    return seen


SUMS = "The two sums are 3 and 7, as the add tool computed them."


def _answers(*values: int) -> Performers:
    it = iter(values)
    return Performers().on(Ask, lambda _e: next(it))


def _paired(log: list[str]) -> None:
    """Each transition's line is followed at once by its memory line, with the same step."""
    for index, line in enumerate(log):
        if "->" in line:
            assert log[index + 1] == f"memory {line.split()[0]}", log


def test_a_watch_that_asks_gets_the_memory_after_each_transition_in_order() -> None:
    watch = Memories()
    done = run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), watch)).unwrap()
    assert watch.memories == [
        (1, Mem()),
        (2, Mem(n=1, total=1)),
        (3, Mem(n=2, total=3)),
        (4, Mem(n=3, total=6)),
        (5, Mem(n=3, total=6)),
    ]
    assert watch.memories[-1] == (done.steps, done.memory)
    _paired(watch.log)


def test_arun_with_async_performers_reports_the_same_memories() -> None:
    async def ask(_effect: Ask) -> int:
        await asyncio.sleep(0)
        return 2

    watch = Memories()
    shell = Shell(Performers().on_async(Ask, ask), StepClock(), watch)
    done = asyncio.run(arun(sample_machine(), Mem(), shell)).unwrap()
    assert [memory for _, memory in watch.memories] == [
        Mem(),
        Mem(n=1, total=2),
        Mem(n=2, total=4),
        Mem(n=3, total=6),
        Mem(n=3, total=6),
    ]
    assert watch.memories[-1] == (done.steps, done.memory)
    _paired(watch.log)


def test_a_resumed_run_reports_the_memory_its_outcome_made_then_every_later_one() -> None:
    paused = run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock()))
    for asynchronous in (False, True):
        watch = Memories()
        shell = Shell(_answers(6, 7), StepClock(), watch)
        done = (
            asyncio.run(aresume_run(sample_machine(), paused.unwrap(), 5, shell))
            if asynchronous
            else resume_run(sample_machine(), paused.unwrap(), 5, shell)
        ).unwrap()
        assert watch.memories == [
            (2, Mem(n=1, total=5)),
            (3, Mem(n=2, total=11)),
            (4, Mem(n=3, total=18)),
            (5, done.memory),
        ]
        _paired(watch.log)


@settings(max_examples=150, deadline=None)
@given(random_machines())
def test_the_memories_reported_are_those_of_the_reference_steps(sample: RandomMachine) -> None:
    watch = Memories()
    watched = run(sample.machine, (), attrs.evolve(sample.shell(), observer=watch))
    assert watched == run(sample.machine, (), sample.shell())
    final = watched.unwrap() if isinstance(watched, Success) else watched.failure().snapshot
    assert watch.memories == stepped(sample.machine, (), final.journal.outcomes)
    assert [step for step, _ in watch.memories] == list(range(1, final.steps + 1))
    _paired(watch.log)


def test_a_watch_that_does_not_ask_leaves_the_fold_without_a_memory_callback() -> None:
    assert Watching(Recorder()).on_memory is None
    assert Watching(Memories()).on_memory is not None
    start = RunStart(
        machine=cast(AnyMachine, sample_machine()), state=S.IDLE, memory=Mem(), steps=0, resumed=False
    )
    for both, asks in ((Both(Recorder(), Recorder()), False), (Both(Recorder(), Memories()), True)):
        watch = both.run_started(start)
        assert watch is not None and (Watching(watch).on_memory is not None) is asks


AnyMachine = Machine[enum.Enum, enum.Enum, object]


def test_both_observers_tell_the_one_that_asks() -> None:
    asks, plain = Memories(), Recorder()
    run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), Both(plain, asks)))
    assert [step for step, _ in asks.memories] == [1, 2, 3, 4, 5]
    assert not any(line.startswith("memory") for line in plain.log)
    both = Memories(), Memories()
    run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), Both(*both)))
    assert both[0].memories == both[1].memories == asks.memories


@attrs.define
class _Raising(Recorder):
    def memory_after(self, step: int, memory: object) -> None:
        raise RuntimeError("memory_after")


def test_a_watch_raising_in_memory_after_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    plain = run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock()))
    watch = _Raising()
    assert run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), watch)) == plain
    assert "an observer raised in memory_after" in caplog.text
    assert sum("->" in line for line in watch.log) == 5 and watch.log[-1] == "end finished"
    paused = run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock()))
    resumed = resume_run(sample_machine(), paused.unwrap(), 5, Shell(_answers(6, 7), StepClock(), _Raising()))
    assert resumed.unwrap().memory.total == 18


def test_a_tool_batch_run_reports_the_memory_after_each_step() -> None:
    calls = (ToolCall("c1", "add", {"a": 1, "b": 2}), ToolCall("c2", "add", {"a": 3, "b": 4}))
    llm = ScriptedLlm([LlmReply(tool_calls=calls), LlmReply(content=SUMS)])
    watch = Memories()
    agent = (
        AgentBuilder.new("Add twice")
        .llm(llm)
        .tool("add", "Add two numbers", {"type": "object"}, lambda a, b: a + b)
        .parallel_tools(True)
        .observe(watch)
        .build()
        .unwrap()
    )
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == SUMS
    assert "effect RunToolBatch" in watch.log and watch.log.count("effect RunTool (part)") == 2
    assert [step for step, _ in watch.memories] == list(range(1, done.snapshot.steps + 1))
    assert watch.memories[-1][1] == done.snapshot.memory
    histories = [len(memory.history) for _, memory in watch.memories if isinstance(memory, AgentMemory)]
    assert len(histories) == len(watch.memories) and max(histories[:-1]) > 0, histories
    _paired(watch.log)


def test_a_durable_run_and_its_resumption_report_every_memory_once(tmp_path: Path) -> None:
    store = SqliteStore.open(str(tmp_path / "runs.db")).unwrap()
    watch = Memories()
    durable = attrs.evolve(DURABLE_ORDERS, shell=lambda: attrs.evolve(DURABLE_ORDERS.shell(), observer=watch))
    order = Order(items=2, approval_over=0)
    stored = durable.start(store, order).unwrap()
    assert stored.snapshot.status is Status.AWAITING
    reference = stepped(durable.machine, order, [*stored.snapshot.journal.outcomes, True])
    assert watch.memories == reference[:-1] and len(reference) == stored.snapshot.steps + 1
    _paired(watch.log)
    waiting = next(p for p in pending(store).unwrap() if p.run_id == stored.run_id)
    answer(store, stored.run_id, waiting.seq, True).unwrap()
    watch.memories.clear()
    watch.log.clear()
    done = durable.resume(store, stored.run_id).unwrap()
    assert done.finished and done.snapshot.memory.approved is True
    assert watch.memories == reference[-1:] == [(done.snapshot.steps, done.snapshot.memory)]
    _paired(watch.log)
    store.close()
