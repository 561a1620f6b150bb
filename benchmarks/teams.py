"""Benchmark of child runs (issue 29, item 7): ratios against baselines measured in the same run.

Run: .venv/bin/python benchmarks/teams.py [--quick] [--runs 200] [--rounds 5] [--children 1000]

* On SQLite: a child machine of 20 effects run as a child run of its parent (``delegate``: a run
  of its own in the store, the parent's wait and resume) costs at most 1.5x the same machine
  embedded in the parent with ``embed`` (one run). The median time per parent, from
  ``Durable.start`` to its end (with no workers the child runs inline). The fixed cost of a child
  (its run row, the parent's wait and resume) is printed on its own: a child of no effects as a
  child run against the same embedded, the difference per parent. Its floor is printed too: the
  SQLite transactions of each parent, counted on the store's connection, and what each one keeps
  (each is what a guarantee needs: see ``commit_breakdown``).
* On PostgreSQL with three ``agentsm-runs worker`` processes: a fan-out of 1,000 children (a
  parent enqueued, its children queued 100 at a time by the store, until the parent finished),
  children per second, against the same 1,000 runs enqueued alone (runs per second).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _teams_side as side  # noqa: E402

from agentsm_fn.durable import Durable, RunStatus, SqliteStore  # noqa: E402
from agentsm_fn.durable.stores.postgres import PostgresStore  # noqa: E402
from tests.durable.transactions import counted_store  # noqa: E402
from tests.postgres import PostgresServer, postgres_binaries, throwaway_cluster  # noqa: E402

TARGET = 1.5
"""A child run of 20 effects may cost at most this many times the same machine embedded."""


def per_parent(durable: Durable[Any, Any, Any], runs: int) -> float:
    """Seconds per parent run (``start`` to its end) over ``runs`` runs in a new SQLite store."""
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "r.db").unwrap()) as store,
    ):
        started = time.perf_counter()
        for index in range(runs):
            done = durable.start(store, 0, run_id=f"p{index}").unwrap()
            assert done.finished, done
        return (time.perf_counter() - started) / runs


def sqlite_figures(runs: int, rounds: int) -> list[str]:
    """The child-vs-embedded ratio and the fixed cost of a child, on SQLite.

    The four variants take turns within each round (so a busy machine slows them alike); each
    figure is the median over the rounds.
    """
    variants = (side.AS_CHILD, side.EMBEDDED, side.EMPTY_AS_CHILD, side.EMPTY_EMBEDDED)
    times: list[list[float]] = [[] for _ in variants]
    for _ in range(rounds):
        for at, durable in enumerate(variants):
            times[at].append(per_parent(durable, runs))
    child, embedded, empty_child, empty_embedded = (statistics.median(t) for t in times)
    ratio = child / embedded
    verdict = "ok" if ratio <= TARGET else "OVER"
    return [
        f"SQLite, a child of {side.EFFECTS} effects: as a child run {child * 1e3:.2f} ms, embedded "
        f"{embedded * 1e3:.2f} ms per parent: {ratio:.2f}x (target <= {TARGET}) {verdict}",
        f"SQLite, the fixed cost of a child (its run, the parent's wait and resume): "
        f"{(empty_child - empty_embedded) * 1e3:.2f} ms per child ({empty_child * 1e3:.2f} ms a parent "
        f"with a child of no effects, {empty_embedded * 1e3:.2f} ms the same embedded)",
    ]


FLOOR = (
    "the parent's wait: the child's row and run (taken by this process), the parent's waiting entry, "
    "checkpoint and stop (so a crash leaves all or none, and the child's id, derived from the parent's "
    "effect, is stored once)",
    "the child's end: its stop, its outcome (written once) and the parent's answer, the parent handed "
    "back to this process (exactly one outcome per child, answered once)",
    "the parent's end (as embedded: its one transaction)",
)
"""What each transaction of a parent with a child of no effects keeps, in order (the floor)."""


def transactions_of(durable: Durable[Any, Any, Any]) -> int:
    """The SQLite transactions one parent run commits, ``start`` to its end (a new store)."""
    with tempfile.TemporaryDirectory() as folder, counted_store(Path(folder) / "r.db") as (store, counted):
        assert durable.start(store, 0, run_id="p").unwrap().finished
        return counted.count


def commit_breakdown() -> list[str]:
    """The fixed cost in transactions: a child against the same embedded, and what each one keeps."""
    empty, embedded = transactions_of(side.EMPTY_AS_CHILD), transactions_of(side.EMPTY_EMBEDDED)
    twenty, twenty_embedded = transactions_of(side.AS_CHILD), transactions_of(side.EMBEDDED)
    lines = [
        f"SQLite transactions per parent: a child of no effects {empty} (embedded {embedded}); of "
        f"{side.EFFECTS} effects {twenty} (embedded {twenty_embedded}): a child adds {empty - embedded}",
    ]
    lines += [f"  {at}. {what}" for at, what in enumerate(FLOOR[:empty], 1)]
    return lines


def _workers(url: str, count: int) -> list[subprocess.Popen[str]]:
    path = os.pathsep.join([str(ROOT), str(ROOT / "benchmarks")])
    env = {**os.environ, "PYTHONPATH": path}
    command = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", url, "worker", side.FAN.name]
    started = [
        subprocess.Popen(
            [*command, side.SMALL.name, "--concurrency", "16", "--poll", "0.5"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    for process in started:
        assert process.stdout is not None and "serving" in process.stdout.readline(), "a worker did not start"
    return started


def _timed(server: PostgresServer, enqueue: Callable[[PostgresStore], Callable[[], bool]]) -> float:
    """Seconds from the first enqueue until ``done`` holds, three workers serving a new database."""
    url = server.create_database()
    store = PostgresStore.open(url).unwrap()
    workers = _workers(url, 3)
    try:
        started = time.perf_counter()
        done = enqueue(store)
        deadline = time.monotonic() + 600
        while not done():
            assert time.monotonic() < deadline, "the workers did not finish"
            time.sleep(0.02)
        return time.perf_counter() - started
    finally:
        for worker in workers:
            worker.kill()
            worker.wait(timeout=30)
            if worker.stdout is not None:
                worker.stdout.close()
        store.close()


def postgres_figures(server: PostgresServer, children: int) -> list[str]:
    """Children per second of one fan-out against the same runs enqueued alone, three workers."""

    def fan(store: PostgresStore) -> Callable[[], bool]:
        side.FAN.enqueue(store, children, run_id="fan").unwrap()
        return lambda: store.get("fan").unwrap().status is RunStatus.FINISHED

    def alone(store: PostgresStore) -> Callable[[], bool]:
        for index in range(children):
            side.SMALL.enqueue(store, 0, run_id=f"r{index}").unwrap()
        return lambda: all(r.status is RunStatus.FINISHED for r in store.runs().unwrap())

    fanned = children / _timed(server, fan)
    single = children / _timed(server, alone)
    return [
        f"PostgreSQL, three workers: a fan-out of {children} children {fanned:.0f} children/s; the same "
        f"{children} runs enqueued alone {single:.0f} runs/s ({fanned / single:.2f}x)"
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="few runs, one round, 50 children (a smoke test)"
    )
    parser.add_argument("--runs", type=int, default=200, help="parents per round on SQLite")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--children", type=int, default=1_000, help="children of the fan-out on PostgreSQL")
    parser.add_argument("--no-postgres", action="store_true", help="only the SQLite figures")
    args = parser.parse_args(argv)
    runs, rounds, children = (10, 1, 50) if args.quick else (args.runs, args.rounds, args.children)
    figures = sqlite_figures(runs, rounds) + commit_breakdown()
    if not args.no_postgres:
        binaries = postgres_binaries()
        if binaries is None:
            sys.exit(
                "PostgreSQL's initdb is missing: apt-get install postgresql (scripts/system-packages.txt)"
            )
        with throwaway_cluster(binaries) as server:
            figures += postgres_figures(server, children)
    for figure in figures:
        print(figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
