"""Durable runs on SQLite and PostgreSQL against LangGraph's SqliteSaver and PostgresSaver, workers, DBOS.

Every side runs in this process (workers in processes of their own) on one PostgreSQL server the
benchmark starts in a temporary directory (Debian's ``initdb``/``pg_ctl``, as the tests do), each
side in a database of its own, measured in alternation, best of several rounds:

1. The engine benchmark's reference workload (``Idle -> Planning -> (Acting -> Observing ->
   Planning) x K -> Done``, the LLM and tool calls performed as effects that are not retry-safe)
   at K = 3, 100 and 1,000: in memory; ``Durable.start`` on a ``SqliteStore`` and on a
   ``PostgresStore``; LangGraph (the same graph as a ``StateGraph`` calling the same scripted LLM
   and tool) with ``SqliteSaver`` and with ``PostgresSaver``. Target: each of our stores at most
   0.05x its LangGraph counterpart. Each store also runs with the write path from before one
   transaction per effect (``_two_per_effect``: each outcome committed alone), and the
   transactions of one run are counted on the SQLite connection: target, half.
2. Workers: 200 ReAct runs against aimock enqueued on PostgreSQL and served by 1, 2 and 4
   ``agentsm-runs worker`` processes (runs per second); and 100 concurrent async ReAct runs in
   one process, in memory against durable on SQLite (group commit; target >= 0.8x).
3. DBOS (``dbos`` on PyPI, if installed): the cost per effect of a workflow of steps against a
   durable run of effects, on the same PostgreSQL server.

    python benchmarks/store.py [--quick] [--no-aimock] [--rounds N] [--only SIDE ...]

LangGraph's savers and DBOS are optional (the ``bench`` extra): a missing one's side is skipped
and said so. Part 2 needs aimock (``bash scripts/aimock.sh``); ``--no-aimock`` skips it.
``--only`` runs some sides alone (repeatable; :data:`SIDES`): ``--only postgres`` is part 1 on
PostgreSQL (``PostgresStore`` both ways and LangGraph's ``PostgresSaver``) with the round trips
of one run counted, and nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib
import importlib.util
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the throwaway PostgreSQL server and transaction counter of the tests

from _langgraph_side import has, langgraph_run  # noqa: E402  # beside this script
from _two_per_effect import PostgresTwoPerEffect, SqliteTwoPerEffect  # noqa: E402

from agentsm_fn.durable import Durable, SqliteStore  # noqa: E402
from agentsm_fn.durable.stores.postgres import PostgresStore  # noqa: E402
from agentsm_fn.durable.stores.protocol.store import RunStore  # noqa: E402
from agentsm_fn.shell import run  # noqa: E402
from tests.durable.round_trips import round_trips_counted  # noqa: E402
from tests.durable.transactions import counted_store  # noqa: E402
from tests.postgres import PostgresServer, postgres_binaries, throwaway_cluster  # noqa: E402

SIDES = {
    "memory": "part 1 in memory",
    "sqlite": "part 1 on SQLite: SqliteStore both ways, LangGraph's SqliteSaver, transactions counted",
    "postgres": "part 1 on PostgreSQL: PostgresStore both ways, LangGraph's PostgresSaver, round trips",
    "workers": "part 2: workers on PostgreSQL and concurrent async runs against aimock",
    "dbos": "part 3: DBOS against durable runs on PostgreSQL",
}
"""What ``--only`` selects (default: everything)."""

PART_ONE = {
    "memory": "memory",
    "sqlite": "sqlite",
    "sqlite 2/effect": "sqlite",
    "LG sqlite": "sqlite",
    "postgres": "postgres",
    "postgres 2/effect": "postgres",
    "LG postgres": "postgres",
}
"""Part 1's sides (its columns, in order) and the ``--only`` name that selects each."""


def _load(name: str, file: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # attrs (and the durable codec) find the module's classes through sys.modules
    spec.loader.exec_module(module)
    return module


ENGINE = _load("engine_benchmark", "engine.py")
DURABLE = Durable(name="engine_benchmark:MACHINE", machine=ENGINE.MACHINE, shell=lambda: ENGINE.SHELL)


def best(rounds: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


# --- part 1: the reference workload on every store ----------------------------------------------


def in_memory(k: int) -> None:
    ENGINE.LLM.reset(k)
    done = run(ENGINE.MACHINE, ENGINE.Mem(), ENGINE.SHELL).unwrap()
    assert len(done.memory.history) == k


def durable_run(store: RunStore) -> Callable[[int], None]:
    def one(k: int) -> None:
        ENGINE.LLM.reset(k)
        done = DURABLE.start(store, ENGINE.Mem()).unwrap()
        assert done.finished and len(done.snapshot.memory.history) == k

    return one


def transactions_of_a_run(folder: Path, k: int) -> tuple[int, int]:
    """The transactions one run at K commits on SQLite: one per effect, and as before (two)."""
    counts = []
    for kind in (SqliteStore, SqliteTwoPerEffect):
        with counted_store(folder / f"count-{kind.__name__}-{k}.db", kind=kind) as (store, counted):
            durable_run(store)(k)
            counts.append(counted.count)
    return counts[0], counts[1]


@contextlib.contextmanager
def sides(
    folder: Path, server: PostgresServer, only: set[str]
) -> Iterator[dict[str, Callable[[int], None] | None]]:
    """The sides of part 1 that ``only`` selects, by name (None: its library is not installed)."""
    found: dict[str, Callable[[int], None] | None] = {}
    if "memory" in only:
        found["memory"] = in_memory
    if "sqlite" in only:
        found["sqlite"] = durable_run(SqliteStore.open(folder / "durable.db").unwrap())
        found["sqlite 2/effect"] = durable_run(SqliteTwoPerEffect.open(folder / "two.db").unwrap())
    if "postgres" in only:
        found["postgres"] = durable_run(PostgresStore.open(server.create_database()).unwrap())
        found["postgres 2/effect"] = durable_run(PostgresTwoPerEffect.open(server.create_database()).unwrap())
    with contextlib.ExitStack() as stack:
        if "sqlite" in only:
            found["LG sqlite"] = None
            if has("langgraph.checkpoint.sqlite"):
                saver: Any = importlib.import_module("langgraph.checkpoint.sqlite").SqliteSaver
                connection = stack.enter_context(
                    contextlib.closing(sqlite3.connect(folder / "langgraph.db", check_same_thread=False))
                )
                found["LG sqlite"] = langgraph_run(ENGINE, saver(connection))
        if "postgres" in only:
            found["LG postgres"] = None
            if has("langgraph.checkpoint.postgres"):
                postgres_saver: Any = importlib.import_module("langgraph.checkpoint.postgres").PostgresSaver
                saving = stack.enter_context(postgres_saver.from_conn_string(server.create_database()))
                saving.setup()
                found["LG postgres"] = langgraph_run(ENGINE, saving)
        yield {name: found[name] for name in PART_ONE if name in found}


def round_trips(side: Callable[[int], None], k: int) -> int:
    """The round trips to the PostgreSQL server of one run of ``side`` at K (counted on psycopg)."""
    side(k)  # the statements prepared, as in the timed rounds
    with round_trips_counted() as counted:
        side(k)
    return counted.count


def part_one(ks: list[int], rounds: int, server: PostgresServer, only: set[str]) -> list[str]:
    verdicts: list[str] = []
    with tempfile.TemporaryDirectory() as folder, sides(Path(folder), server, only) as found:
        if not found:
            return verdicts
        for name in ("LG sqlite", "LG postgres"):
            if name in found and found[name] is None:
                print(f"LangGraph's {name.split()[1]} saver is not installed (the bench extra): skipped")
        columns = list(found)
        print(f"{'K':>6} {'effects':>7} " + " ".join(f"{name:>17}" for name in columns))
        for k in ks:
            n = rounds if k < 1_000 else max(1, rounds // 3)
            times = {
                name: best(n, functools.partial(side, k)) if side else float("nan")
                for name, side in found.items()
            }
            print(f"{k:>6} {2 * k + 1:>7} " + " ".join(f"{times[name] * 1e3:>15.2f}ms" for name in columns))
            for ours, theirs in (("sqlite", "LG sqlite"), ("postgres", "LG postgres")):
                if found.get(theirs) is not None and ours in found:
                    ratio = times[ours] / times[theirs]
                    verdicts.append(
                        f"K={k}: {ours} / LangGraph+{theirs.split()[1]} saver = {ratio:.3f}x (target <= 0.05)"
                    )
            stores = [s for s in ("sqlite", "postgres") if s in found]
            gain = ", ".join(f"{s} {times[s + ' 2/effect'] / times[s]:.2f}x" for s in stores)
            if "sqlite" in found:
                one, two = transactions_of_a_run(Path(folder), k)
                verdicts.append(
                    f"K={k}: transactions of a run {one} (two per effect: {two}, {two / one:.2f}x); "
                    f"time with two per effect / one: {gain}"
                )
            elif stores:
                verdicts.append(f"K={k}: time with two per effect / one: {gain}")
            if "postgres" in found:
                ours_trips = round_trips(found["postgres"] or in_memory, k)
                theirs_side = found.get("LG postgres")
                theirs_trips = f"{round_trips(theirs_side, k):,}" if theirs_side else "not installed"
                verdicts.append(
                    f"K={k}: round trips of a run on PostgreSQL: {ours_trips:,} "
                    f"({ours_trips / (2 * k + 1):.2f} per effect); LangGraph+postgres saver: {theirs_trips}"
                )
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round, small K and few runs (a smoke test)")
    parser.add_argument("--no-aimock", action="store_true", help="skip the ReAct runs against aimock")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(SIDES),
        help="run only this side (repeatable): " + "; ".join(f"{k}: {v}" for k, v in SIDES.items()),
    )
    args = parser.parse_args(argv)
    only = set(args.only or SIDES)
    rounds = 1 if args.quick else args.rounds
    ks = [3, 100] if args.quick else [3, 100, 1_000]
    binaries = postgres_binaries()
    if binaries is None:
        sys.exit("PostgreSQL's initdb is missing: apt-get install postgresql (scripts/system-packages.txt)")
    with throwaway_cluster(binaries) as server:
        verdicts = part_one(ks, rounds, server, only)
        if "workers" in only and not args.no_aimock:
            verdicts += part_two(server, args.quick, rounds)
        if "dbos" in only:
            dbos_side = _load("dbos_side", "_dbos_side.py")
            verdicts += dbos_side.per_effect(server, ENGINE, DURABLE, 10 if args.quick else 100, rounds)
    for verdict in verdicts:
        print(verdict)
    return 0


def part_two(server: PostgresServer, quick: bool, rounds: int) -> list[str]:
    providers = _load("providers", "providers.py")
    workers = _load("workers_side", "_workers_side.py")
    concurrent = _load("react_async", "_react_async.py")
    process, base = providers.start_aimock()
    try:
        verdicts: list[str] = workers.throughput(
            server.create_database, base, 20 if quick else 200, (1, 2, 4)
        )
        runs, concurrency = (20, 10) if quick else (200, 100)
        verdicts.append(asyncio.run(concurrent.concurrent_react(providers, base, runs, concurrency, rounds)))
        return verdicts
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    raise SystemExit(main())
