"""Observers: a run reports its start, transitions, effects and end, and is unchanged by being watched."""

from __future__ import annotations

import asyncio
import enum
import threading

import attrs
import pytest
from hypothesis import given, settings
from returns.result import Failure, Success

from agentsm_fn import (
    SUSPEND,
    Effect,
    EffectFailure,
    Performers,
    Shell,
    Status,
    StepClock,
    arun,
    resume_run,
    run,
)
from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.outcomes import ToolBatchResult
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunStart
from agentsm_fn.llm import ToolCall
from agentsm_fn.shell import aresume_run, perform_part
from agentsm_fn.shell.observing import Watching
from agentsm_fn.shell.tools import ToolRunner
from agentsm_fn.tools import ToolRegistry
from tests.core.machines import RandomMachine, random_machines
from tests.core.sample import Ask, Mem, S, routed_sample_machine, sample_machine


@attrs.define
class Recorder:
    """Records every call an observer gets, as short strings."""

    log: list[str] = attrs.field(factory=list)
    starts: list[RunStart] = attrs.field(factory=list)
    ends: list[RunEnd] = attrs.field(factory=list)
    decline: bool = False

    def run_started(self, start: RunStart) -> Recorder | None:
        self.starts.append(start)
        self.log.append(f"start {start.machine.name} {start.state.name} resumed={start.resumed}")
        return None if self.decline else self

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        self.log.append(f"{step} {state.name} -{event.name}-> {target.name}")

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        part = "" if within is None else " (part)"
        self.log.append(f"effect {type(effect).__name__}{part}")
        return _Effect(self, type(effect).__name__)

    def run_ended(self, end: RunEnd) -> None:
        self.ends.append(end)
        reason = "" if end.reason is None else f" {type(end.reason).__name__}"
        self.log.append(f"end {end.snapshot.status.value}{reason}")


@attrs.frozen
class _Effect:
    recorder: Recorder
    name: str

    def effect_ended(self, outcome: object, seconds: float) -> None:
        assert seconds >= 0
        shown = "SUSPEND" if outcome is SUSPEND else repr(outcome)
        self.recorder.log.append(f"ended {self.name} {shown}")

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        self.recorder.log.append(f"raised {self.name} {type(error).__name__}")


def _answers(*values: int) -> Performers:
    it = iter(values)
    return Performers().on(Ask, lambda _e: next(it))


def test_a_run_reports_each_transition_and_effect_in_order() -> None:
    recorder = Recorder()
    result = run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), recorder))
    assert result == run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock()))
    assert recorder.log == [
        "start sample IDLE resumed=False",
        "1 IDLE -START-> WORK",
        "effect Ask",
        "ended Ask 1",
        "2 WORK -MORE-> WORK",
        "effect Ask",
        "ended Ask 2",
        "3 WORK -MORE-> WORK",
        "effect Ask",
        "ended Ask 3",
        "4 WORK -MORE-> WORK",
        "5 WORK -FINISHED-> DONE",
        "end finished",
    ]
    assert recorder.ends[0].snapshot is result.unwrap()


def test_a_declined_run_is_not_watched_any_further() -> None:
    recorder = Recorder(decline=True)
    result = run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), recorder))
    assert result.unwrap().state is S.DONE
    assert recorder.log == ["start sample IDLE resumed=False"]


class _Broken:
    """An observer whose every hook raises."""

    def run_started(self, start: RunStart) -> _Broken:
        return self

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        raise RuntimeError("transition")

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        raise RuntimeError("effect_started")

    def run_ended(self, end: RunEnd) -> None:
        raise RuntimeError("run_ended")


class _BrokenStart:
    def run_started(self, start: RunStart) -> None:
        raise RuntimeError("run_started")


def test_an_observer_that_raises_never_changes_a_run(caplog: pytest.LogCaptureFixture) -> None:
    plain = run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock()))
    for observer in (_Broken(), _BrokenStart()):
        assert run(sample_machine(), Mem(), Shell(_answers(1, 2, 3), StepClock(), observer)) == plain
    assert "an observer raised in transition" in caplog.text
    assert "an observer raised in run_started" in caplog.text


def test_a_raising_performer_is_reported_and_the_run_fails_as_usual() -> None:
    def boom(_effect: Ask) -> int:
        raise ValueError("no numbers today")

    recorder = Recorder()
    result = run(sample_machine(), Mem(), Shell(Performers().on(Ask, boom), StepClock(), recorder))
    assert isinstance(result, Failure)
    assert recorder.log[-3:] == ["effect Ask", "raised Ask ValueError", "end awaiting EffectFailed"]


def test_a_suspended_run_reports_the_pause_and_its_resumption_continues_it() -> None:
    recorder = Recorder()
    paused = run(
        sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock(), recorder)
    )
    assert paused.unwrap().status is Status.AWAITING
    assert recorder.log[-2:] == ["ended Ask SUSPEND", "end awaiting"]
    recorder.log.clear()
    done = resume_run(sample_machine(), paused.unwrap(), 5, Shell(_answers(6, 7), StepClock(), recorder))
    assert done.unwrap().memory.total == 18
    assert recorder.log[:2] == ["start sample WORK resumed=True", "2 WORK -MORE-> WORK"]
    assert recorder.starts[-1].snapshot is paused.unwrap()
    assert recorder.log[-1] == "end finished"


def test_arun_and_aresume_run_report_async_performers() -> None:
    async def ask(_effect: Ask) -> int:
        await asyncio.sleep(0)
        return 2

    recorder = Recorder()
    shell = Shell(Performers().on_async(Ask, ask), StepClock(), recorder)
    done = asyncio.run(arun(sample_machine(), Mem(), shell))
    assert done.unwrap().memory.total == 6
    assert recorder.log.count("ended Ask 2") == 3
    paused = run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock()))
    recorder.log.clear()
    resumed = asyncio.run(aresume_run(sample_machine(), paused.unwrap(), 1, shell))
    assert resumed.unwrap().memory.total == 5
    assert recorder.log[:2] == ["start sample WORK resumed=True", "2 WORK -MORE-> WORK"]


def test_a_batchs_tool_calls_are_reported_as_its_parts() -> None:
    registry = ToolRegistry().register("add", "Add", {"type": "object"}, lambda a, b: a + b)
    runner = ToolRunner(registry)
    batch = RunToolBatch(
        (RunTool(ToolCall("c1", "add", {"a": 1, "b": 2})), RunTool(ToolCall("c2", "add", {})))
    )
    recorder = Recorder()
    watch = recorder.run_started(
        RunStart(machine=sample_machine(), state=S.IDLE, memory=0, steps=0, resumed=False)  # type: ignore[arg-type]  # any machine will do
    )
    assert watch is not None

    performers = Watching(watch).performers(runner.performers())
    sync, asynchronous = performers.find(batch), performers.find_async(batch)
    assert sync is not None and asynchronous is not None

    async def awaited() -> object:
        assert asynchronous is not None
        return await asynchronous(batch)

    for outcome in (sync(batch), asyncio.run(awaited())):
        assert isinstance(outcome, ToolBatchResult) and [r.ok for r in outcome.results] == [True, False]
    parts = [line for line in recorder.log if "(part)" in line]
    assert parts == ["effect RunTool (part)"] * 4
    assert sum(line.startswith("ended RunTool ") for line in recorder.log) == 4
    assert sum(line.startswith("ended RunToolBatch ") for line in recorder.log) == 2


def test_perform_part_outside_an_observed_run_just_calls() -> None:
    assert perform_part(RunTool(ToolCall("c", "t", {})), lambda: "plain") == "plain"


@settings(max_examples=150, deadline=None)
@given(random_machines())
def test_observed_transitions_are_exactly_the_traces_and_the_result_is_unchanged(
    sample: RandomMachine,
) -> None:
    recorder = Recorder()
    plain = run(sample.machine, (), sample.shell())
    watched_shell = attrs.evolve(sample.shell(), observer=recorder)
    watched = run(sample.machine, (), watched_shell)
    assert watched == plain
    final = watched.unwrap() if isinstance(watched, Success) else watched.failure().snapshot
    expected = [f"{e.step} {e.state} -{e.event}-> {e.target}" for e in final.trace if e.target]
    assert [line for line in recorder.log if "->" in line] == expected
    assert recorder.log[-1].startswith("end ")
    effects = sum(1 for e in final.trace if not e.target)
    assert sum(line.startswith("effect ") for line in recorder.log) in (effects, effects - 1)


def test_an_observed_timed_performer_still_times_out_under_run_and_arun() -> None:
    machine = routed_sample_machine()
    never = threading.Event()
    hanging = Performers().on(Ask, lambda effect: 1 if never.wait() else 0, timeout=0.05)
    for result in (
        run(machine, Mem(), Shell(hanging, StepClock(), Recorder())),
        asyncio.run(arun(machine, Mem(), Shell(hanging, StepClock(), Recorder()))),
    ):
        assert result.unwrap().journal.outcomes == (EffectFailure.timed_out("Ask", 0.05),)
