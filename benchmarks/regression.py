"""Benchmark of a recorded run as a regression case: reading its file and replaying it against the code.

Run: .venv/bin/python benchmarks/regression.py [--cycles 333] [--repeat 21]   (best of 21 timings each)

Target (issue 28, item 9): replaying a recorded run of 1,000 steps as a regression case takes under
50 ms. The run is the reference workload (``Idle -> Planning -> (Acting -> Observing -> Planning) x K
-> Done``, benchmarks/_workload.py) with Planning asking a model and Acting using a tool as effects:
K = 333 gives 1,001 steps and 667 effects. A case is what the pytest plugin does for one file:
parse the recording's JSON text (:func:`recording_from_json`), decode its values through the
codec, fold its journal with the engine's exact replay (each request's SHA-256 digest checked),
compare every row and the end. The baseline, measured in the same run, is running the same run
with in-process performers (the engine's fast fold, no file, no codec, no digests); the engine's
reference ``replay`` of the run's in-memory journal (step by step) is printed beside it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from pyrsistent import PVector, pvector
from returns.result import Result

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _workload import E, S  # noqa: E402

from agentsm_fn.core import Effect, Fault, Perform, begin, define_machine, effectful, emit, perform, pure  # noqa: E402
from agentsm_fn.core.engine import replay  # noqa: E402
from agentsm_fn.core.machine import Machine  # noqa: E402
from agentsm_fn.core.snapshot import Snapshot  # noqa: E402
from agentsm_fn.regression import (  # noqa: E402
    Recording,
    record_run,
    recording_from_json,
    recording_to_json,
    replay_recording,
)
from agentsm_fn.shell import Performers, Shell, StepClock, run  # noqa: E402

TARGET_MS = 50.0


@attrs.frozen
class Think(Effect[str]):
    """Ask the model what to do next, after ``step`` steps."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    step: int
    last: str


@attrs.frozen
class Use(Effect[str]):
    """Use a tool."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    tool: str
    step: int


@attrs.frozen(kw_only=True)
class Mem:
    cycles: int
    step: int = 0
    tool: str = ""
    history: PVector[str] = attrs.field(factory=pvector)
    answer: str = ""


def start(mem: Mem) -> Result[tuple[Literal[E.START], Mem], Fault]:
    return emit(E.START, mem)


def think(mem: Mem) -> Result[Perform[str, Mem], Fault]:
    return perform(Think(mem.step, mem.history[-1] if mem.history else ""), mem)


def thought(mem: Mem, tool: str) -> Result[tuple[Literal[E.TOOL_CALL, E.FINAL], Mem], Fault]:
    if tool:
        return emit(E.TOOL_CALL, attrs.evolve(mem, tool=tool))
    return emit(E.FINAL, attrs.evolve(mem, answer="done"))


def act(mem: Mem) -> Result[Perform[str, Mem], Fault]:
    return perform(Use(mem.tool, mem.step), mem)


def acted(mem: Mem, said: str) -> Result[tuple[Literal[E.TOOL_DONE], Mem], Fault]:
    return emit(E.TOOL_DONE, attrs.evolve(mem, step=mem.step + 1, history=mem.history.append(said)))


def observe(mem: Mem) -> Result[tuple[Literal[E.CONTINUE], Mem], Fault]:
    return emit(E.CONTINUE, mem)


MACHINE: Machine[S, E, Mem] = define_machine(
    name="workload",
    states=S,
    events=E,
    initial=S.IDLE,
    terminals={S.DONE},
    table={
        (S.IDLE, E.START): S.PLANNING,
        (S.PLANNING, E.TOOL_CALL): S.ACTING,
        (S.PLANNING, E.FINAL): S.DONE,
        (S.ACTING, E.TOOL_DONE): S.OBSERVING,
        (S.OBSERVING, E.CONTINUE): S.PLANNING,
    },
    handlers={
        S.IDLE: pure(start),
        S.PLANNING: effectful(think, thought),
        S.ACTING: effectful(act, acted),
        S.OBSERVING: pure(observe),
    },
    safety_cap=lambda mem: 3 * mem.cycles + 10,
)


@attrs.frozen
class Workload:
    """One run of ``cycles`` cycles: its recording and text, the engine's replay of it, and running it."""

    recording: Recording
    text: str
    engine_replay: Callable[[], object]
    live: Callable[[], object]


def recorded(cycles: int) -> Workload:
    """The run of ``cycles`` cycles, recorded, with the two measures it is compared with."""
    performers = (
        Performers()
        .on(Think, lambda effect: "calculator" if effect.step < cycles else "")
        .on(Use, lambda effect: f"{effect.tool} says {effect.step * 7}")
    )
    first = begin(MACHINE, Mem(cycles=cycles))

    def live() -> Snapshot[S, Mem]:
        return run(MACHINE, first, Shell(performers, StepClock(start=1000.0))).unwrap()

    stopped = live()
    assert stopped.steps == 3 * cycles + 2
    recording = record_run(MACHINE, first, stopped, f"{__name__}:MACHINE").unwrap()
    return Workload(
        recording=recording,
        text=recording_to_json(recording),
        engine_replay=lambda: replay(MACHINE, first, stopped.journal).unwrap(),
        live=live,
    )


def case(text: str) -> int:
    """One regression case: read the recording's text and replay it; the steps it replayed."""
    recording = recording_from_json(text, "workload.recording.json").unwrap()
    return replay_recording(recording, MACHINE, "workload.recording.json").unwrap().steps


def best_ms(fn: Callable[[], object], repeat: int) -> float:
    """The best of ``repeat`` timings, in ms: on a machine shared with other work, the least disturbed one."""
    fn()  # warm
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--cycles", type=int, default=333, help="K: 3K + 2 steps, 2K + 1 effects (333: 1,001)"
    )
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args(argv)
    work = recorded(args.cycles)
    text = work.text
    steps, effects = 3 * args.cycles + 2, len(work.recording.effects)
    assert case(text) == steps
    parse = best_ms(lambda: recording_from_json(text), args.repeat)
    whole = best_ms(lambda: case(text), args.repeat)
    engine = best_ms(work.engine_replay, args.repeat)
    baseline = best_ms(work.live, args.repeat)
    print(f"a recorded run of {steps:,} steps and {effects:,} effects ({len(text) / 1024:.0f} KiB of JSON)")
    print(f"  running it with in-process performers (baseline): {baseline:.1f} ms")
    print(f"  the engine's reference replay of its journal: {engine:.1f} ms = {engine / baseline:.1f}x")
    print(f"  reading the recording's text: {parse:.1f} ms = {parse / baseline:.1f}x")
    verdict = "ok" if whole < TARGET_MS else "MISSED"
    print(
        f"  replaying it as a regression case (read, decode, replay, compare): {whole:.1f} ms "
        f"= {whole / baseline:.1f}x the baseline (target < {TARGET_MS:.0f} ms: {verdict})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
