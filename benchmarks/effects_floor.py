"""The floor under the effects variant of ``engine.py``: its own code with no engine at all.

``engine.py``'s effects variant writes Planning and Acting as a request, a performer and a
receive: three calls and an effect value where the baseline loop has inline code. This
script runs exactly those functions (``engine.MACHINE``'s handlers, ``engine.SHELL``'s
performers) in two loops with no engine, measured in alternation with the engine and the
baseline, so each column is a ratio to the baseline measured in the same run:

* **floor**: nothing but the calls (no trace, journal, clock, outcome check or failure
  route): what this code costs by itself, the least any engine running it can cost;
* **floor+journal**: the floor plus the least bookkeeping the design asks of a run (a clock
  reading and a trace row per transition; per effect a trace row, a second clock reading
  and a journal entry before ``receive``): the least any engine that journals can cost;
* **bare+journal**: the floor+journal with Planning's and Acting's requests returning a
  plain ``(effect, memory)`` pair instead of ``perform(...)``'s ``Success(Perform(...))``:
  what the cheapest request contract would leave;
* **engine**: ``engine.engine_run``; ``engine/floor`` is what the engine adds to the code.

Run: ``python benchmarks/effects_floor.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import attrs
from _workload import LLM, E, S  # beside this script
from engine import (
    MACHINE,
    Consult,
    Mem,
    UseTool,
    act,
    acted,
    baseline_run,
    best_times_of,
    consult,
    engine_run,
    idle,
    observe,
    plan,
    planned,
    run_settings,
    use_tool,
)
from returns.result import Result

from agentsm_fn import Effect, Fault, Perform

Pure = Callable[[Mem], Result[tuple[E, Mem], Fault]]
Request = Callable[[Mem], Result[Perform[str, Mem], Fault]]
Receive = Callable[[Mem, str], Result[tuple[E, Mem], Fault]]

FLOOR_STATES: dict[int, Pure | tuple[Request, Receive]] = {
    id(S.IDLE): idle,
    id(S.PLANNING): (plan, planned),
    id(S.ACTING): (act, acted),
    id(S.OBSERVING): observe,
}
"""MACHINE's handlers by the id of their state (``Enum.__hash__`` is a Python call; ``id`` is not)."""


def plan_bare(m: Mem) -> tuple[Consult, Mem]:
    """``engine.plan`` as a bare request: the effect and the memory, no ``Result``."""
    return Consult(), attrs.evolve(m, step=m.step + 1)


def act_bare(m: Mem) -> tuple[UseTool, Mem]:
    """``engine.act`` as a bare request."""
    return UseTool(m.pending), m


BareRequest = Callable[[Mem], tuple[Effect[str], Mem]]
BARE_STATES: dict[int, Pure | tuple[BareRequest, Receive]] = {
    id(S.IDLE): idle,
    id(S.PLANNING): (plan_bare, planned),
    id(S.ACTING): (act_bare, acted),
    id(S.OBSERVING): observe,
}
FLOOR_TABLE = {(id(source), id(event)): target for (source, event), target in MACHINE.table.items()}
FLOOR_PERFORMERS: dict[type, Callable[..., str]] = {Consult: consult, UseTool: use_tool}


def floor_run(k: int, keep: list[Mem] | None = None) -> int:
    """MACHINE's handlers and SHELL's performers in the thinnest loop: nothing but the calls.

    No trace, journal, clock, outcome check or failure route: what the effects
    variant's own code costs, the least any engine running it can cost.
    """
    LLM.reset(k)
    memory, state, transitions = Mem(), S.IDLE, 0
    while state is not S.DONE:
        handler = FLOOR_STATES[id(state)]
        if isinstance(handler, tuple):
            request, receive = handler
            effect, memory = request(memory).unwrap()
            event, memory = receive(memory, FLOOR_PERFORMERS[type(effect)](effect)).unwrap()
        else:
            event, memory = handler(memory).unwrap()
        state = FLOOR_TABLE[(id(state), id(event))]
        transitions += 1
    assert len(memory.history) == k
    if keep is not None:
        keep.append(memory)
    return transitions


def floor_with_journal_run(k: int, keep: list[Mem] | None = None) -> int:
    """:func:`floor_run` plus the least bookkeeping the design asks of a run.

    A clock reading and a trace row per transition, and per effect a trace row, a
    second clock reading and a journal entry (digest, outcome) before ``receive``:
    what replay and durable runs are made of. Still no outcome check, failure route,
    safety cap or snapshot.
    """
    return _journaled(k, keep, FLOOR_STATES)


def bare_with_journal_run(k: int, keep: list[Mem] | None = None) -> int:
    """:func:`floor_with_journal_run` with bare requests (:data:`BARE_STATES`)."""
    return _journaled(k, keep, BARE_STATES)


def _journaled(
    k: int,
    keep: list[Mem] | None,
    states: Mapping[int, Pure | tuple[Request, Receive]] | Mapping[int, Pure | tuple[BareRequest, Receive]],
) -> int:
    LLM.reset(k)
    memory, state, transitions = Mem(), S.IDLE, 0
    rows: list[tuple[int, S, object, S | None, str, float]] = []
    ticks: list[float | tuple[float, str, str]] = []
    add_row, add_tick, clock = rows.append, ticks.append, time.time
    while state is not S.DONE:
        handler = states[id(state)]
        now = clock()
        add_tick(now)
        if isinstance(handler, tuple):
            request, receive = handler
            requested = request(memory)
            if isinstance(requested, tuple):  # a bare request
                effect, memory = requested
            else:
                effect, memory = requested.unwrap()
            digest = type(effect).__name__
            add_row((transitions + 1, state, digest, None, "", now))
            outcome = FLOOR_PERFORMERS[type(effect)](effect)
            now = clock()
            add_tick((now, digest, outcome))
            event, memory = receive(memory, outcome).unwrap()
        else:
            event, memory = handler(memory).unwrap()
        target = FLOOR_TABLE[(id(state), id(event))]
        transitions += 1
        add_row((transitions, state, event, target, "", now))
        state = target
    assert len(memory.history) == k
    if keep is not None:
        keep.append(memory)
    return transitions


def measure_floor(ks: list[int], budget: float) -> None:
    """Print how far the effects variant is from the floor of its own code, with and without bookkeeping."""
    print("\nfloor: the effects variant's handlers and performers with no engine (ratios to the baseline)")
    columns = ("floor", 7), ("floor+journal", 14), ("bare+journal", 13), ("engine", 7), ("engine/floor", 13)
    print(f"{'K':>7} " + " ".join(f"{name:>{width}}" for name, width in columns))
    worst = [0.0, 0.0, 0.0, 0.0]  # floor, floor+journal, bare+journal, engine over floor+journal
    for k in ks:
        sides = [floor_run, floor_with_journal_run, bare_with_journal_run, engine_run, baseline_run]
        (floor, journaled, bare, engine, baseline), _ = best_times_of(sides, k, budget)
        ratios = (floor / baseline, journaled / baseline, bare / baseline, engine / journaled)
        worst = [max(a, b) for a, b in zip(worst, ratios, strict=True)]
        print(
            f"{k:>7} {floor / baseline:>7.2f} {journaled / baseline:>14.2f} {bare / baseline:>13.2f} "
            f"{engine / baseline:>7.2f} {engine / floor:>13.2f}"
        )
    print(
        f"worst ratio of the floor {worst[0]:.2f}, of the floor+journal {worst[1]:.2f},"
        f" of the bare+journal {worst[2]:.2f}: what this code costs with the least bookkeeping"
        " (a clock reading and trace row per transition, a journal entry per effect) and no engine"
    )
    print(f"engine over the floor+journal: at most {worst[3]:.2f}x")


def main(argv: list[str] | None = None) -> int:
    measure_floor(*run_settings(argv, __doc__))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
