"""Engine overhead: microseconds per transition against a hand-written immutable loop.

The reference workload is ``Idle -> Planning -> (Acting -> Observing -> Planning) x K -> Done``:
Planning consults a scripted in-process LLM (K tool calls, then a final answer),
Acting calls a trivial tool, Observing appends to history. The baseline is the loop a
careful user would write by hand: a dict lookup for the transition, ``attrs.evolve``
on a frozen record, tuple history.

Two engine variants run against the same baseline in the same process:

* **reference** (the targets are about this one): the baseline's exact work on the
  engine. Pure handlers over the same frozen record with the same ``attrs.evolve``
  calls, calling the same scripted LLM object and tool in process, as the baseline
  does; the engine adds what it is for: ``Result`` values, the frozen table, the
  clock-stamped trace, the replay journal and the terminal snapshot.
* **effects**: Planning and Acting request the LLM call and the tool call as effects
  performed by the shell (how an application uses the library). On top of the
  reference this builds an effect value, a ``Perform`` request and its ``Success``
  per call, journals each outcome with a second clock reading and calls a separate
  ``receive`` function: the price of effects as data, shown for transparency.
  ``benchmarks/effects_floor.py`` measures how much of it is the workload's own code,
  which no engine removes.

Tracing (the ``otel`` extra) is measured on the effects variant, against the same run
without an observer: with an ``OtelObserver`` while OpenTelemetry has no SDK configured
("installed but disabled", target: at most 3% slower), and with the SDK on (a batch span
processor whose exporter drops the spans, and an in-memory metric reader), for its cost.

Run: ``python benchmarks/engine.py`` (``--quick`` for a short smoke run). Prints one
row per K and the targets: ratio <= 1.5 at every K, engine cost per transition at
the largest K within 1.2x of K = 3, and a K = 0 run within 5 baseline transitions.
Timings are CPU time, engine and baseline measured in alternation, best of many
rounds; on a shared machine they still move by several percent between runs.

One idea over 300 lines: one workload, the machine it runs on, the loop it is compared with.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from typing import ClassVar, Literal

import attrs
from _workload import LLM, E, S, tool  # beside this script, shared with history.py
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
    """Ask the scripted LLM: the reply is a tool name, or "" for the final answer."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)


@attrs.frozen
class UseTool(Effect[str]):
    """Call the tool named ``name``."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    name: str


@attrs.frozen(kw_only=True)
class Mem:
    step: int = 0
    pending: str = ""
    observation: str = ""
    answer: str = ""
    history: PVector[str] = attrs.field(factory=pvector)


def idle(m: Mem) -> Result[tuple[Literal[E.START], Mem], Fault]:
    return emit(E.START, m)


def plan(m: Mem) -> Result[Perform[str, Mem], Fault]:
    return perform(Consult(), attrs.evolve(m, step=m.step + 1))


def planned(m: Mem, reply: str) -> Result[tuple[Literal[E.TOOL_CALL, E.FINAL], Mem], Fault]:
    if reply:
        return emit(E.TOOL_CALL, attrs.evolve(m, pending=reply))
    return emit(E.FINAL, attrs.evolve(m, answer="done"))


def act(m: Mem) -> Result[Perform[str, Mem], Fault]:
    return perform(UseTool(m.pending), m)


def acted(m: Mem, result: str) -> Result[tuple[Literal[E.TOOL_DONE], Mem], Fault]:
    return emit(E.TOOL_DONE, attrs.evolve(m, observation=result))


def observe(m: Mem) -> Result[tuple[Literal[E.CONTINUE], Mem], Fault]:
    entry = f"{m.pending}: {m.observation}"
    return emit(E.CONTINUE, attrs.evolve(m, pending="", observation="", history=m.history.append(entry)))


MACHINE: Machine[S, E, Mem] = define_machine(
    name="reference",
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


def consult(_effect: Consult) -> str:
    return LLM()


def use_tool(effect: UseTool) -> str:
    return tool(effect.name)


SHELL = Shell(Performers().on(Consult, consult).on(UseTool, use_tool), time.time)


def engine_run(k: int) -> int:
    """The workload on the engine, Planning and Acting performing effects through the shell."""
    LLM.reset(k)
    done = run(MACHINE, Mem(), SHELL).unwrap()
    assert done.state is S.DONE and len(done.memory.history) == k
    return done.steps


def pure_plan(m: Mem) -> Result[tuple[Literal[E.TOOL_CALL, E.FINAL], Mem], Fault]:
    # Calls the scripted LLM object in process, exactly as the baseline loop does.
    m = attrs.evolve(m, step=m.step + 1)
    reply = LLM()
    if reply:
        return emit(E.TOOL_CALL, attrs.evolve(m, pending=reply))
    return emit(E.FINAL, attrs.evolve(m, answer="done"))


def pure_act(m: Mem) -> Result[tuple[Literal[E.TOOL_DONE], Mem], Fault]:
    return emit(E.TOOL_DONE, attrs.evolve(m, observation=tool(m.pending)))


PURE_MACHINE: Machine[S, E, Mem] = define_machine(
    name="reference-pure",
    states=S,
    events=E,
    initial=S.IDLE,
    terminals={S.DONE},
    table=MACHINE.table,
    handlers={
        S.IDLE: pure(idle),
        S.PLANNING: pure(pure_plan),
        S.ACTING: pure(pure_act),
        S.OBSERVING: pure(observe),
    },
    safety_cap=10**9,
)


def engine_pure_run(k: int) -> int:
    """The baseline's exact work (same memory, same updates, same LLM object) on the engine."""
    LLM.reset(k)
    done = run(PURE_MACHINE, Mem(), SHELL).unwrap()
    assert done.state is S.DONE and len(done.memory.history) == k
    return done.steps


@attrs.frozen(kw_only=True)
class BaselineMem:
    step: int = 0
    pending: str = ""
    observation: str = ""
    answer: str = ""
    history: tuple[str, ...] = ()


BASELINE_TABLE = {
    ("Idle", "start"): "Planning",
    ("Planning", "tool_call"): "Acting",
    ("Planning", "final"): "Done",
    ("Acting", "tool_done"): "Observing",
    ("Observing", "continue"): "Planning",
}


def baseline_run(k: int) -> int:
    """The naive immutable loop a user would write without the library."""
    llm = LLM
    llm.reset(k)
    memory = BaselineMem()
    state, transitions = "Idle", 0
    while state != "Done":
        if state == "Idle":
            event = "start"
        elif state == "Planning":
            memory = attrs.evolve(memory, step=memory.step + 1)
            reply = llm()
            if reply:
                event, memory = "tool_call", attrs.evolve(memory, pending=reply)
            else:
                event, memory = "final", attrs.evolve(memory, answer="done")
        elif state == "Acting":
            event, memory = "tool_done", attrs.evolve(memory, observation=tool(memory.pending))
        else:
            entry = f"{memory.pending}: {memory.observation}"
            memory = attrs.evolve(memory, pending="", observation="", history=(*memory.history, entry))
            event = "continue"
        state = BASELINE_TABLE[(state, event)]
        transitions += 1
    assert len(memory.history) == k
    return transitions


MIN_ROUNDS = 15
"""Rounds measured even past the time budget: a long run (K = 10,000) needs enough samples
for its best to be its cost rather than a moment of noise."""


def best_times(
    engine: Callable[[int], int], baseline: Callable[[int], int], k: int, budget: float
) -> tuple[float, float, int]:
    """Best CPU seconds per run of ``engine`` and of ``baseline``, measured in alternation."""
    (engine_seconds, baseline_seconds), transitions = best_times_of([engine, baseline], k, budget)
    return engine_seconds, baseline_seconds, transitions


def best_times_of(fns: Sequence[Callable[[int], int]], k: int, budget: float) -> tuple[list[float], int]:
    """Best CPU seconds per run of each of ``fns``, measured in alternation, and their transitions.

    CPU time (``process_time``) rather than wall time, and the sides take turns
    batch by batch, so a burst of noise from a neighbour hits all alike; the minimum
    over many rounds is what the code costs without interference.
    """
    transitions = fns[0](k)
    assert all(fn(k) == transitions for fn in fns)  # also warms them up
    batch = max(1, 3_000 // (3 * k + 2))
    best = [float("inf")] * len(fns)
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < MIN_ROUNDS or (time.perf_counter() < deadline and rounds < 2_000):
        for side, fn in enumerate(fns):
            gc.collect()
            started = time.process_time()
            for _ in range(batch):
                fn(k)
            best[side] = min(best[side], (time.process_time() - started) / batch)
        rounds += 1
    return best, transitions


def measure(
    label: str, fn: Callable[[int], int], ks: list[int], budget: float
) -> tuple[dict[int, tuple[float, float]], float]:
    print(f"\n{label}")
    print(f"{'K':>7} {'transitions':>12} {'engine us/tr':>13} {'baseline us/tr':>15} {'ratio':>7}")
    out: dict[int, tuple[float, float]] = {}
    for k in ks:
        engine_seconds, baseline_seconds, transitions = best_times(fn, baseline_run, k, budget)
        assert transitions == 3 * k + 2
        engine_us = engine_seconds / transitions * 1e6
        baseline_us = baseline_seconds / transitions * 1e6
        out[k] = (engine_us, engine_us / baseline_us)
        print(f"{k:>7} {transitions:>12} {engine_us:>13.2f} {baseline_us:>15.2f} {out[k][1]:>7.2f}")
    zero_seconds, baseline_seconds, _ = best_times(fn, baseline_run, 0, budget)
    baseline_three, _ = best_times(baseline_run, baseline_run, 3, budget)[:2]
    zero_in_baseline_transitions = zero_seconds / (baseline_three / (3 * 3 + 2))
    return out, zero_in_baseline_transitions


def tracing_variants() -> dict[str, Callable[[int], int]] | None:
    """The effects run with tracing installed but disabled, and on; None without the otel extra."""
    try:
        from opentelemetry.sdk.metrics import MeterProvider  # noqa: PLC0415 - optional extra
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: PLC0415
        from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
        from opentelemetry.sdk.trace.export import (  # noqa: PLC0415
            BatchSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )

        from agentsm_fn.otel import OtelObserver  # noqa: PLC0415
    except ImportError:
        return None

    class Dropping(SpanExporter):
        """Exports nothing: what is measured is the library's and the SDK's in-process work."""

        def export(self, spans: object) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Dropping(), max_queue_size=1 << 16))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    disabled = attrs.evolve(SHELL, observer=OtelObserver())  # the global providers: no SDK in this process
    enabled = attrs.evolve(
        SHELL, observer=OtelObserver(tracer_provider=tracer_provider, meter_provider=meter_provider)
    )

    def with_shell(shell: Shell) -> Callable[[int], int]:
        def run_traced(k: int) -> int:
            LLM.reset(k)
            done = run(MACHINE, Mem(), shell).unwrap()
            assert done.state is S.DONE and len(done.memory.history) == k
            return done.steps

        return run_traced

    return {"installed but disabled": with_shell(disabled), "on": with_shell(enabled)}


def measure_tracing(ks: list[int], budget: float) -> None:
    variants = tracing_variants()
    if variants is None:
        print("\ntracing: the otel extra is not installed; skipped")
        return
    print("\ntracing: the effects run with an OtelObserver against the same run without one")
    print(f"{'K':>7} {'tracing':>24} {'untraced us/tr':>15} {'traced us/tr':>13} {'ratio':>7}")
    worst_disabled, on_ratio, on_extra = 0.0, 0.0, 0.0
    for label, fn in variants.items():
        for k in ks:
            traced_seconds, plain_seconds, transitions = best_times(fn, engine_run, k, budget)
            ratio = traced_seconds / plain_seconds
            traced_us, plain_us = traced_seconds / transitions * 1e6, plain_seconds / transitions * 1e6
            print(f"{k:>7} {label:>24} {plain_us:>15.2f} {traced_us:>13.2f} {ratio:>7.3f}")
            if label == "on":
                on_ratio, on_extra = max(on_ratio, ratio), max(on_extra, traced_us - plain_us)
            else:
                worst_disabled = max(worst_disabled, ratio)
    print(f"tracing installed but disabled: worst ratio {worst_disabled:.3f} (target <= 1.03)")
    print(f"tracing on: up to {on_ratio:.1f}x, +{on_extra:.1f} us per transition (spans, events and metrics)")


def run_settings(argv: list[str] | None, doc: str | None) -> tuple[list[int], float]:
    """The K values and seconds per measurement a timing script's command line asks for (printed)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small K values and short timings (smoke run)")
    parser.add_argument(
        "--budget", type=float, help="seconds per measurement (default 2, or 0.3 with --quick)"
    )
    args = parser.parse_args(argv)
    ks = [3, 100, 1_000] if args.quick else [3, 100, 1_000, 10_000]
    budget = args.budget if args.budget is not None else 0.3 if args.quick else 2.0
    print(f"python {sys.version.split()[0]}; best CPU time of repeated runs, ~{budget:.1f} s per measurement")
    return ks, budget


def main(argv: list[str] | None = None) -> int:
    ks, budget = run_settings(argv, __doc__)
    variants = {
        "reference: the baseline's work on the engine (LLM and tool called in process)": engine_pure_run,
        "effects: LLM and tool performed as effects through the shell": engine_run,
    }
    for label, fn in variants.items():
        results, zero = measure(label, fn, ks, budget)
        worst = max(ratio for _, ratio in results.values())
        growth = results[ks[-1]][0] / results[3][0]
        print(f"worst ratio engine/baseline: {worst:.2f} (target <= 1.5)")
        print(f"engine cost per transition, K={ks[-1]} vs K=3: {growth:.2f}x (target <= 1.2)")
        print(f"K=0 run costs {zero:.1f} baseline transitions (target <= 5)")
    measure_tracing(ks, budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
