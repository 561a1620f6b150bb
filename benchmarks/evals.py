"""Evals: what the experiment machinery costs, replaying a long recorded run, and 1,000 cases at once.

1. Machinery: N cases of a scripted ReAct agent (a tool call, then an answer), concurrency 8, on a
   fresh SQLite store each time: the cases' runs alone (``Durable.astart`` under a semaphore) against
   the same runs as an experiment (run ids, evidence, two checks, the stored case runs, the machine's
   coverage). Target: the experiment at most 1.1x the runs alone. Alternated, best of the rounds.
2. Replay: a stored run of 1,000 steps (500 effects) replayed from its journal (``replay_stored``,
   what judging a recorded run and a regression case read), ms per replay. Target: under 50 ms.
3. Scale: 1,000 cases on the scripted agent at concurrency 8; every case's run and result stored.

    python benchmarks/evals.py [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import enum
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.evals import Case, Dataset, contains, no_failure
from agentsm_fn.evals.experiment import arun_experiment
from agentsm_fn.evals.stored import experiment_runs
from agentsm_fn.evals.subjects import subject_for
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.shell import Performers, Shell, StepClock
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.tools import tool


@tool
def note(text: str) -> str:
    """Note a text.

    Args:
        text: What to note.
    """
    return f"noted {len(text)}"


class NotingLlm:
    name = "noting"

    def complete(self, request: LlmRequest) -> LlmReply:
        task = next(m.content for m in request.messages if isinstance(m, UserMessage))
        if not any(isinstance(m, ToolResultMessage) for m in request.messages):
            return LlmReply(tool_calls=(ToolCall("n1", "note", {"text": task}),))
        return LlmReply(content=f"done: {task}")


AGENT = (
    AgentBuilder.new("")
    .llm(NotingLlm())
    .tools(note)
    .config(AgentConfig(max_steps=4, min_answer_length=1, reflect_every_n_steps=0))
    .with_clock(StepClock(start=1.0))
    .build()
    .unwrap()
)
NOTED = Durable(name="evals:NOTED", machine=AGENT.machine, shell=AGENT.shell, template=AGENT.memory)


def dataset(n: int) -> Dataset:
    cases = tuple(Case(name=f"case-{i}", input=f"note task {i}") for i in range(n))
    return Dataset(name="noted", cases=cases, evaluators=(no_failure(), contains("done")))


async def runs_alone(store: SqliteStore, data: Dataset) -> None:
    gate = asyncio.Semaphore(8)
    subject = subject_for(NOTED)

    async def one(case: Case) -> None:
        async with gate:
            (await NOTED.astart(store, subject.start(case).unwrap(), run_id=f"alone.{case.name}")).unwrap()

    await asyncio.gather(*(one(c) for c in data.cases))


async def as_experiment(store: SqliteStore, data: Dataset) -> None:
    found = await arun_experiment(store, data, subject_for(NOTED), name="bench", concurrency=8)
    assert all(r.passed for r in found.unwrap().runs)


def timed(work: str, data: Dataset) -> float:
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        started = time.perf_counter()
        asyncio.run(runs_alone(store, data) if work == "alone" else as_experiment(store, data))
        return time.perf_counter() - started


def machinery(cases: int, rounds: int) -> float:
    data = dataset(cases)
    best = {"alone": float("inf"), "experiment": float("inf")}
    for _ in range(rounds):
        for work, so_far in best.items():
            best[work] = min(so_far, timed(work, data))
    ratio = best["experiment"] / best["alone"]
    print(
        f"machinery, {cases} cases at concurrency 8: runs alone {best['alone'] * 1e3:.0f} ms, "
        f"as an experiment {best['experiment'] * 1e3:.0f} ms: {ratio:.2f}x (target <= 1.10x)"
    )
    return ratio


class C(enum.Enum):
    COUNTING = "counting"
    DONE = "done"


class V(enum.Enum):
    TICKED = "ticked"
    MORE = "more"
    ENOUGH = "enough"


@attrs.frozen
class Tick(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True


@attrs.frozen(kw_only=True)
class Count:
    n: int = 0
    limit: int = 500


def ask(count: Count) -> Result[Perform[int, Count], Fault]:
    return perform(Tick(), count)


def ticked(count: Count, by: int) -> Result[tuple[Literal[V.MORE, V.ENOUGH], Count], Fault]:
    done = attrs.evolve(count, n=count.n + by)
    return emit(V.ENOUGH if done.n >= done.limit else V.MORE, done)


COUNTER: Machine[C, V, Count] = define_machine(
    name="counter",
    states=C,
    events=V,
    initial=C.COUNTING,
    terminals={C.DONE},
    table={(C.COUNTING, V.MORE): C.COUNTING, (C.COUNTING, V.ENOUGH): C.DONE},
    handlers={C.COUNTING: effectful(ask, ticked)},
    safety_cap=lambda count: count.limit * 4,
)


def replay(steps: int, rounds: int) -> float:
    durable = Durable(
        name="evals:COUNTER",
        machine=COUNTER,
        shell=lambda: Shell(Performers().on(Tick, lambda e: 1), StepClock()),
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        stored = durable.start(store, Count(limit=steps), run_id="long").unwrap()
        assert stored.snapshot.steps == steps
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            replayed = replay_stored(store, COUNTER, "long").unwrap()
            best = min(best, time.perf_counter() - started)
        assert replayed.memory == stored.snapshot.memory
    print(f"replay of a stored run of {steps} steps ({steps} effects): {best * 1e3:.1f} ms (target < 50 ms)")
    return best


def scale(cases: int) -> float:
    data = dataset(cases)
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        started = time.perf_counter()
        found = asyncio.run(
            arun_experiment(store, data, subject_for(NOTED), name="scale", concurrency=8)
        ).unwrap()
        took = time.perf_counter() - started
        stored = experiment_runs(store, "scale").unwrap()
        assert len(found.runs) == len(stored) == cases and len(store.runs().unwrap()) == cases
        assert all(r.passed for r in stored)
    print(
        f"{cases} cases at concurrency 8: {took:.2f} s, {cases / took:.0f} cases/s, "
        "every case's run and result stored"
    )
    return took


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--quick", action="store_true", help="few cases, one round (a smoke run)")
    options.add_argument("--rounds", type=int, default=5)
    args = options.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    machinery(20 if args.quick else 200, rounds)
    replay(1000, 3 if args.quick else 20)
    scale(50 if args.quick else 1000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
