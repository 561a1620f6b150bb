"""Benchmark of the verifier: all checks on generated machines, and the hook end to end.

Run: .venv/bin/python benchmarks/verify.py

Targets (issue 5): 200 states in under 50 ms after import; 5,000 states and
20,000 rows in under 1 s; the hook (``agentsm-verify`` with the project's
pyproject) end to end on the built-in machines in under 1 s. The baseline,
from the same run, is what a reachability-only checker does: build the
networkx graph and take the descendants of the initial state.

Exploration (issue 21): at least 10,000 distinct states per second on a space of at least
100,000 distinct states: the property-testing example (triage) explored from every ticket
with up to 8 answers and ``max_attempts`` up to 8, with its invariants and run properties
checked at every edge. The floor, from the same run, is a plain BFS over the same handlers
(called directly, no engine, no checks). Memory per state: ``tracemalloc``'s peak during a
second exploration of the same space, over its distinct states.
"""

from __future__ import annotations

import enum
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import networkx as nx
from returns.result import Result

from agentsm_fn import Fault, Handler, Machine, Perform, fail, pure
from verification import verify

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ("NEXT", "SKIP", "BACK", "FINISH")


def _never(n: int) -> Result[tuple[enum.Enum, int], Fault]:
    return fail("never run")


def generated(n: int) -> Machine[enum.Enum, enum.Enum, int]:
    """A sound machine of ``n`` work states plus DONE, four rows per state (4n rows).

    Forward rows NEXT and SKIP, FINISH to DONE, and a BACK row to the last
    budgeted state (every fifth state is budgeted), so every cycle passes
    through a budgeted state.
    """
    names = [f"S{i}" for i in range(n)] + ["DONE"]
    states: type[enum.Enum] = enum.Enum("States", names)  # type: ignore[misc]  # generated enum
    events: type[enum.Enum] = enum.Enum("Events", EVENTS)  # type: ignore[misc]  # generated enum
    s = list(states)
    done = s[-1]
    ev = {name: events[name] for name in EVENTS}
    table: dict[tuple[enum.Enum, enum.Enum], enum.Enum] = {}
    for i in range(n):
        table[(s[i], ev["NEXT"])] = s[i + 1] if i + 1 < n else done
        table[(s[i], ev["SKIP"])] = s[i + 2] if i + 2 < n else done
        table[(s[i], ev["BACK"])] = s[(i // 5) * 5]
        table[(s[i], ev["FINISH"])] = done
    handler: Handler[enum.Enum, int] = pure(_never, events=set(ev.values()))
    return Machine(
        name=f"generated-{n}",
        states=states,
        events=events,
        initial=s[0],
        terminals=frozenset({done}),
        table=table,
        handlers={s[i]: handler for i in range(n)},
        budgeted=frozenset(s[i] for i in range(0, n, 5)),
    )


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def reachability_only(machine: Machine[enum.Enum, enum.Enum, int]) -> int:
    graph: nx.MultiDiGraph[enum.Enum] = nx.MultiDiGraph()
    graph.add_edges_from((s, t, {"event": e}) for (s, e), t in machine.table.items())
    return len(nx.descendants(graph, machine.initial))


def row(label: str, took: float, base: float, target: float) -> str:
    figures = f"{took * 1000:>8.1f}ms {base * 1000:>8.1f}ms {took / base:>6.1f}x {target * 1000:>6.0f}ms"
    return f"{label:<50} {figures}"


def run_checked(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def child_cpu(fn: Callable[[], object], repeat: int = 5) -> float:
    """Mean CPU seconds (user + system) of the child processes ``fn`` runs: steady under machine load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(repeat):
        fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / repeat


HOOK_CONFIG = """
repos:
  - repo: local
    hooks:
      - id: agentsm-verify
        name: agentsm-verify
        entry: {python} -m verification
        language: system
        pass_filenames: false
        always_run: true
"""


def precommit_repo(where: Path) -> Path:
    """A git repository whose pre-commit config runs the hook's entry on the project's pyproject."""
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    (where / ".pre-commit-config.yaml").write_text(
        HOOK_CONFIG.format(python=sys.executable), encoding="utf-8"
    )
    subprocess.run(["git", "init", "-q"], cwd=where, check=True)
    subprocess.run(["git", "add", "."], cwd=where, check=True)
    return where


def plain_bfs(machine: Machine[enum.Enum, enum.Enum, object], starts: tuple[object, ...]) -> int:
    """The floor: distinct (state, memory) of a BFS calling the pure handlers directly."""
    seen: set[tuple[enum.Enum, object]] = set()
    level: list[tuple[enum.Enum, object]] = []
    for memory in starts:
        node = (machine.initial, memory)
        if node not in seen:
            seen.add(node)
            level.append(node)
    while level:
        following = []
        for state, memory in level:
            decision = machine.handlers[state].enter(memory).unwrap()
            assert not isinstance(decision, Perform)  # the triage handlers are pure
            event, after = decision
            node = (machine.table[(state, event)], after)
            if node not in seen:
                seen.add(node)
                if node[0] not in machine.terminals:
                    following.append(node)
        level = following
    return len(seen)


def exploration(bound: int) -> tuple[int, int, float, float, float]:
    """Explore triage from every ticket within ``bound``: states, edges, seconds, floor, bytes per state."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import importlib  # noqa: PLC0415

    triage = importlib.import_module("examples.property_testing.explore_triage")
    starts = triage.tickets_within(answers=bound, attempts=bound)
    start = time.perf_counter()
    found = triage.explore_triage(starts)
    took = time.perf_counter() - start
    assert found.ok and found.exhausted, found.summary()
    start = time.perf_counter()
    assert plain_bfs(triage.TRIAGE, starts) == found.states
    floor = time.perf_counter() - start
    tracemalloc.start()
    again = triage.explore_triage(starts)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return found.states, found.edges, took, floor, peak / again.states


def explore_rows(bound: int = 8) -> bool:
    """Print the exploration figures; whether the target is met."""
    states, edges, took, floor, per_state = exploration(bound)
    rate = states / took
    print(
        f"explore triage: {states:,} distinct states, {edges:,} edges in {took:.2f}s: "
        f"{rate:,.0f} states/s (target >= 10,000/s on >= 100,000 states)"
    )
    print(
        f"  floor (plain BFS over the handlers, no engine, no checks): {states / floor:,.0f} states/s; "
        f"explore costs {took / floor:.1f}x the floor"
    )
    print(f"  memory per state (tracemalloc peak / distinct states): {per_state:,.0f} bytes")
    return rate >= 10_000 and states >= 100_000


def main() -> int:
    print(f"{'case':<50} {'time':>10} {'baseline':>10} {'ratio':>7} {'target':>8}")
    ok = True
    for n, repeat, target in ((200, 20, 0.050), (5000, 3, 1.0)):
        machine = generated(n)
        report = verify(machine)
        assert report.ok and report.rows == 4 * n, report.violations[:3]
        took = best_of(repeat, lambda m=machine: verify(m))  # type: ignore[misc]  # default binds the loop value
        base = best_of(repeat, lambda m=machine: reachability_only(m))  # type: ignore[misc]
        ok &= took < target
        print(row(f"all checks, {n + 1} states, {4 * n} rows", took, base, target))
    bare = [sys.executable, "-c", "pass"]
    python = best_of(5, lambda: run_checked(bare, ROOT))
    python_cpu = child_cpu(lambda: run_checked(bare, ROOT))
    cli_command = [sys.executable, "-m", "verification"]
    cli = best_of(5, lambda: run_checked(cli_command, ROOT))
    cli_cpu = child_cpu(lambda: run_checked(cli_command, ROOT))
    ok &= cli < 1.0
    print(row("agentsm-verify, built-in machines (wall)", cli, python, 1.0))
    print(row("agentsm-verify, built-in machines (cpu)", cli_cpu, python_cpu, 1.0))
    with tempfile.TemporaryDirectory() as tmp:
        repo = precommit_repo(Path(tmp))
        hook_command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
        hook = best_of(5, lambda: run_checked(hook_command, repo))
        hook_cpu = child_cpu(lambda: run_checked(hook_command, repo))
    ok &= hook < 1.0
    print(row("pre-commit run, hook on built-in machines (wall)", hook, python, 1.0))
    print(row("pre-commit run, hook on built-in machines (cpu)", hook_cpu, python_cpu, 1.0))
    print("baselines: reachability only (networkx graph + descendants); bare interpreter start")
    ok &= explore_rows()
    print("wall = best of 5 (includes waiting while the machine is busy); cpu = mean user+system time")
    print("all targets met" if ok else "SOME TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
