"""In memory, a run whose effects carry its history: time per transition and peak memory against K.

The workload is the engine benchmark's (``Idle -> Planning -> (Acting -> Observing ->
Planning) x K -> Done``, LLM and tool performed as effects through the shell), except
that Planning's effect carries the whole history, as an LLM call carries every message:

* **shared**: the effect holds the memory's persistent vector of history entries (appending
  is O(1) and the effect shares it), the way to carry history without copying it;
* **copied**: the effect holds a fresh tuple of the history (``LlmRequest.messages`` is a
  tuple: the ReAct agent builds one per call), so each effect costs O(K) to build.

Both effects have their own ``summary()`` (as ``LlmCall`` does), so the journal's digest
calls it once per effect. Two measurements, in the same run of this script:

1. CPU microseconds per transition at K = 3, 100, 1,000 (no tracemalloc running), and the
   ratio K = 1,000 / K = 3. Target for *shared*: at most 1.2 (the engine's cost per
   transition does not grow with the history). *copied* is shown for transparency: its
   handler's own tuple copy grows with K.
2. Peak memory of one run (``tracemalloc``) at K = 100, 1,000 and 3,000, as bytes per
   cycle of the loop, and the growth of that per-cycle figure from the smallest K to the
   largest. Linear growth keeps it near 1.0. If the journal or the trace kept every effect
   whole, *copied* would grow with K (memory with the square of K).

Run: ``python benchmarks/history.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import ClassVar, Literal

import attrs
from _workload import LLM, E, S, tool  # beside this script, shared with engine.py
from pyrsistent import PVector, pvector
from returns.result import Result

from agentsm_fn import (
    Effect,
    Fault,
    Machine,
    Perform,
    Performers,
    Shell,
    define_machine,
    effectful,
    emit,
    perform,
    pure,
    run,
)


@attrs.frozen
class Consult(Effect[str]):
    """Ask the scripted LLM, sending the whole history (like an LLM call with every message)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    history: PVector[str] | tuple[str, ...]

    def summary(self) -> str:
        return f"Consult messages={len(self.history)}"


@attrs.frozen
class UseTool(Effect[str]):
    """Call the tool named ``name``."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    name: str

    def summary(self) -> str:
        return f"UseTool {self.name}"


@attrs.frozen(kw_only=True)
class Mem:
    step: int = 0
    pending: str = ""
    observation: str = ""
    answer: str = ""
    history: PVector[str] = attrs.field(factory=pvector)
    copied: bool = False


def idle(m: Mem) -> Result[tuple[Literal[E.START], Mem], Fault]:
    return emit(E.START, m)


def plan(m: Mem) -> Result[Perform[str, Mem], Fault]:
    history = tuple(m.history) if m.copied else m.history
    return perform(Consult(history), attrs.evolve(m, step=m.step + 1))


def planned(m: Mem, reply: str) -> Result[tuple[Literal[E.TOOL_CALL, E.FINAL], Mem], Fault]:
    if reply:
        return emit(E.TOOL_CALL, attrs.evolve(m, pending=reply))
    return emit(E.FINAL, attrs.evolve(m, answer="done"))


def act(m: Mem) -> Result[Perform[str, Mem], Fault]:
    return perform(UseTool(m.pending), m)


def acted(m: Mem, result: str) -> Result[tuple[Literal[E.TOOL_DONE], Mem], Fault]:
    return emit(E.TOOL_DONE, attrs.evolve(m, observation=result))


def observe(m: Mem) -> Result[tuple[Literal[E.CONTINUE], Mem], Fault]:
    entry = f"{m.pending}: {m.observation} ({m.step})"  # distinct strings: the history's real size
    return emit(E.CONTINUE, attrs.evolve(m, pending="", observation="", history=m.history.append(entry)))


MACHINE: Machine[S, E, Mem] = define_machine(
    name="history",
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
        S.IDLE: pure(idle),
        S.PLANNING: effectful(plan, planned),
        S.ACTING: effectful(act, acted),
        S.OBSERVING: pure(observe),
    },
    safety_cap=10**9,
)

SHELL = Shell(Performers().on(Consult, lambda _e: LLM()).on(UseTool, lambda e: tool(e.name)), time.time)


def history_run(k: int, copied: bool = False) -> int:
    """One run with K tool cycles; returns its transitions."""
    LLM.reset(k)
    done = run(MACHINE, Mem(copied=copied), SHELL).unwrap()
    assert done.state is S.DONE and len(done.memory.history) == k
    return done.steps


def us_per_transition(fn: Callable[[], int], budget: float) -> float:
    """Best CPU microseconds per transition over repeated batches."""
    transitions = fn()
    batch = max(1, 3_000 // transitions)
    best = float("inf")
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < 5 or (time.perf_counter() < deadline and rounds < 2_000):
        gc.collect()
        started = time.process_time()
        for _ in range(batch):
            fn()
        best = min(best, (time.process_time() - started) / batch)
        rounds += 1
    return best / transitions * 1e6


def peak_bytes(k: int, copied: bool) -> int:
    """Peak traced memory of one run (the final snapshot is alive at the peak)."""
    gc.collect()
    tracemalloc.start()
    try:
        history_run(k, copied)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timings and small K (smoke run)")
    parser.add_argument("--budget", type=float, help="seconds per timing (default 2, or 0.3 with --quick)")
    args = parser.parse_args(argv)
    budget = args.budget if args.budget is not None else 0.3 if args.quick else 2.0
    time_ks = [3, 100, 1_000]
    memory_ks = [30, 100, 300] if args.quick else [100, 1_000, 3_000]
    print(f"python {sys.version.split()[0]}; best CPU time of repeated runs, ~{budget:.1f} s per timing")
    for label, copied in (("shared (persistent vector)", False), ("copied (a tuple per call)", True)):
        print(f"\neffects carry the history, {label}")
        print(f"{'K':>7} {'transitions':>12} {'us/transition':>14}")
        timings = {}
        for k in time_ks:
            timings[k] = us_per_transition(functools.partial(history_run, k, copied), budget)
            print(f"{k:>7} {3 * k + 2:>12} {timings[k]:>14.2f}")
        growth = timings[time_ks[-1]] / timings[3]
        target = " (target <= 1.2)" if not copied else " (no target: the handler copies the history)"
        print(f"cost per transition, K={time_ks[-1]} vs K=3: {growth:.2f}x{target}")
        print(f"{'K':>7} {'peak KiB':>10} {'bytes/cycle':>12}")
        per_cycle = {}
        for k in memory_ks:
            peak = peak_bytes(k, copied)
            per_cycle[k] = peak / k
            print(f"{k:>7} {peak / 1024:>10.0f} {per_cycle[k]:>12.0f}")
        spread = per_cycle[memory_ks[-1]] / per_cycle[memory_ks[0]]
        print(
            f"peak memory per cycle, K={memory_ks[-1]} vs K={memory_ks[0]}: {spread:.2f}x "
            "(linear in K: near 1.0; quadratic: grows with K)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
