"""What one look of ``GET /events`` costs with 10,000 runs stored: before (every run read) and after.

Before, each look of the store-wide watch read every run (``runs()``) and each client compared
every record with what it was sent; now a look reads the runs updated since the last one and
the count (``updated_since``, an index on ``(updated, id)``), and reads every run only when the
count says a run was removed (and every ``RESYNC_LOOKS`` looks). For each store (SQLite in a
temporary file; PostgreSQL on a throwaway server, as the tests start it, if its binaries are
installed) with ``--runs`` runs: the median ms per look and the runs it read, for the old look,
a look when nothing changed, a look after 10 runs changed (as if 10 changed every 0.25 s: a look
reads again what changed in the last ``LOOKBACK`` seconds, here 400 runs), and a look after a
run was removed.

Then the look's own query alone (``updates_since`` with nothing updated after its cursor: the
window's runs and the count) at 10,000 and 100,000 runs, to show what grows with the store: the
count was ``count(*)`` over ``runs``, it is now ``meta``'s few ``run_count`` rows, kept by triggers.

Then a run's own stream (``GET /runs/{id}/events``): a run of 100, 1,000 and 5,000 effects
grows by one effect at a time (its row started, then completed, as another process writes
it); per change, the ms and journal rows read to derive its events, before (``stored_events``:
the whole journal replayed) and now (``StoredFollow``: from the last settled row).

    python benchmarks/watch.py [--runs N] [--looks N] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the throwaway PostgreSQL server of the tests

from agentsm_fn.durable import NewRun, SqliteStore, open_store, stored_events  # noqa: E402
from agentsm_fn.durable.operations.following import StoredFollow  # noqa: E402
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStore  # noqa: E402
from agentsm_fn.durable.stores.protocol.updates import updates_since  # noqa: E402
from agentsm_fn.server.changes import CHANGES_INTERVAL as INTERVAL  # noqa: E402
from agentsm_fn.server.changes import StoreWatch, changed_runs  # noqa: E402
from tests.durable.stores import execute  # noqa: E402
from tests.inspector.machines import COUNTER, Count  # noqa: E402
from tests.postgres import postgres_binaries, throwaway_cluster  # noqa: E402

CHANGED = 10
"""Runs changed between two looks in the ``10 changed`` row."""


def fill(store: RunStore, count: int) -> None:
    """``count`` runs of three machines, created (and last updated) a second apart."""
    for n in range(count):
        new = NewRun(
            run_id=f"run-{n:05d}",
            machine=f"app:M{n % 3}",
            fingerprint="f",
            memory=b"\x80",
            created=1e9 + n,
            owner="",
            lease_until=0.0,
        )
        store.create(new).unwrap()


def old_look(store: RunStore, sent: dict[str, RunRecord]) -> int:
    """The look before: every run read, and compared with what a client was sent."""
    now = {record.run_id: record for record in store.runs().unwrap()}
    changed_runs(sent, now)
    sent.clear()
    sent.update(now)
    return len(now)


def _median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def measure(label: str, store: RunStore, db: str, runs: int, looks: int) -> None:
    """The four rows of one store (of ``runs`` runs)."""
    sent: dict[str, RunRecord] = {}
    old_look(store, sent)
    times, read = [], 0
    for _ in range(looks):
        started = time.perf_counter()
        read = old_look(store, sent)
        times.append(time.perf_counter() - started)
    print(f"{label + ', before: every run read':<46} {_median_ms(times):>9.2f} {read:>10,}")

    watch = StoreWatch(store, 0.25)

    async def looked(between: Callable[[int], None]) -> tuple[float, int]:
        spent, rows = [], 0
        for n in range(looks):
            between(n)
            before, started = watch.rows_read, time.perf_counter()
            await watch.refresh()
            spent.append(time.perf_counter() - started)
            rows = watch.rows_read - before
            assert watch.error is None
        return _median_ms(spent), rows

    def change(n: int) -> None:
        ids = [f"run-{(n * CHANGED + k) % (runs // 2):05d}" for k in range(CHANGED)]
        marks = ", ".join("?" for _ in ids)
        at = 2e9 + n * INTERVAL  # as if the looks were INTERVAL apart: the window holds LOOKBACK's changes
        execute(db, f"UPDATE runs SET steps = steps + 1, updated = ? WHERE id IN ({marks})", (at, *ids))

    def remove(n: int) -> None:
        execute(db, "DELETE FROM runs WHERE id = ?", (f"run-{runs // 2 + n:05d}",))

    async def rows() -> None:
        await watch.refresh()  # the first look reads every run
        for name, between in (
            ("nothing changed", lambda n: None),
            (f"{CHANGED} runs changed", change),
            ("a run removed (every run read)", remove),
        ):
            ms, count = await looked(between)
            print(f"{label + ', after: ' + name:<46} {ms:>9.2f} {count:>10,}")

    full = watch.full_reads
    asyncio.run(rows())
    assert watch.full_reads - full == 1 + looks  # the first look, then one per removal: no other
    watch.store.close()


@contextlib.contextmanager
def stores(folder: Path, with_postgres: bool) -> Iterator[list[tuple[str, str]]]:
    """The stores to measure: (label, what ``open_store`` takes)."""
    found = [("sqlite", str(folder / "runs.db"))]
    binaries = postgres_binaries() if with_postgres else None
    if binaries is None:
        if with_postgres:
            print("postgresql: no initdb/pg_ctl installed, its rows are left out")
        yield found
        return
    with throwaway_cluster(binaries) as server:
        yield [*found, ("postgres", server.create_database())]


_BULK = (
    "WITH RECURSIVE n(i) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?) "
    "INSERT INTO runs (id, machine, fingerprint, status, created, updated, memory) "
    "SELECT 'bulk-' || i, 'app:M', 'f', 'finished', 1e9 + i, 1e9 + i, ? FROM n"
)


def measure_count(folder: Path, with_postgres: bool, sizes: tuple[int, ...], looks: int) -> None:
    """The look's query alone (nothing updated after the cursor) as the store grows to each of ``sizes``."""
    print(f"\nGET /events: the look's query alone (updates_since, nothing updated), median of {looks}")
    print(f"{'store':<10} " + " ".join(f"{f'{size:,} runs ms':>16}" for size in sizes))
    with stores(folder, with_postgres) as found:
        for label, db in found:
            store, held, cells = open_store(db).unwrap(), 0, []
            for size in sizes:
                execute(db, _BULK, (held, size, b"\x80"))
                held = size
                spent = []
                for _ in range(looks):
                    started = time.perf_counter()
                    total = updates_since(store, (9e9, ""), 1).unwrap().total
                    spent.append(time.perf_counter() - started)
                assert total == size
                cells.append(f"{_median_ms(spent):>16.3f}")
            print(f"{label:<10} " + " ".join(cells))
            store.close()


_JOURNAL = "run_id, seq, digest, ticks, outcome, at, waiting, summary, effect"


def follow_costs(folder: Path, effects: int, changes: int) -> tuple[float, float, int, float]:
    """A run of ``effects`` effects followed as ``changes`` more are written (each started, then done).

    The ms per change and journal rows read per change: before (``stored_events``, the whole
    journal replayed) and now (``StoredFollow``, from the last settled row).
    """
    with closing(SqliteStore.open(folder / f"source-{effects}.db").unwrap()) as source:
        COUNTER.start(source, Count(target=effects + changes), run_id="c").unwrap()
        rows = execute(source.path, f"SELECT {_JOURNAL} FROM journal WHERE run_id = 'c' ORDER BY seq")
        path = str(folder / f"follow-{effects}.db")
        with closing(SqliteStore.open(path).unwrap()) as store:
            run = execute(source.path, "SELECT * FROM runs WHERE id = 'c'")[0]
            execute(path, f"INSERT INTO runs VALUES ({', '.join('?' for _ in run)})", run)
            execute(path, "UPDATE runs SET status = 'running', tail = NULL")
            marks = ", ".join("?" for _ in rows[0])
            for row in rows[:effects]:
                execute(path, f"INSERT INTO journal({_JOURNAL}) VALUES ({marks})", row)
            follow = StoredFollow(store, COUNTER, "c")
            follow.look().unwrap()
            before, after, read = [], [], follow.rows_read
            for row in rows[effects : effects + changes]:
                for write in ("start", "complete"):
                    if write == "start":
                        execute(
                            path,
                            f"INSERT INTO journal({_JOURNAL}) VALUES ({marks})",
                            (*row[:4], None, None, *row[6:]),
                        )
                    else:
                        execute(
                            path, "UPDATE journal SET outcome = ?, at = ? WHERE seq = ?", (*row[4:6], row[1])
                        )
                    started = time.perf_counter()
                    stored_events(store, COUNTER, "c").unwrap()
                    before.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    follow.look().unwrap()
                    after.append(time.perf_counter() - started)
            whole = len(
                execute(path, "SELECT seq FROM journal")
            )  # what stored_events read at the last change
            per_change = (follow.rows_read - read) / (2 * changes)
            return _median_ms(before), _median_ms(after), whole, per_change


def measure_follow(folder: Path, lengths: tuple[int, ...], changes: int) -> None:
    """A run's follower (``GET /runs/{id}/events``): one change of a long run, before and now."""
    print(f"\nGET /runs/{{id}}/events: one change of a stored run, {changes * 2} changes measured per length")
    print(f"{'effects':>8} {'before ms':>10} {'rows read':>10} {'now ms':>8} {'rows read':>10}  (per change)")
    for effects in lengths:
        before, after, rows, per_change = follow_costs(folder, effects, changes)
        print(f"{effects:>8,} {before:>10.2f} {rows:>10,} {after:>8.2f} {per_change:>10.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="runs in the store (default 10,000)")
    parser.add_argument("--looks", type=int, default=40, help="looks measured per row (default 40)")
    parser.add_argument("--quick", action="store_true", help="1,000 runs, 5 looks, SQLite only")
    args = parser.parse_args(argv)
    runs, looks = (1_000, 5) if args.quick else (args.runs, args.looks)
    print(f"GET /events: one look of the store-wide watch with {runs:,} runs stored")
    print(f"{'store, look':<46} {'median ms':>9} {'runs read':>10}")
    with stores(Path(tempfile.mkdtemp()), not args.quick) as found:
        for label, db in found:
            with closing(open_store(db).unwrap()) as store:
                fill(store, runs)
                measure(label, store, db, runs, looks)
    if not args.quick:
        measure_count(Path(tempfile.mkdtemp()), True, (10_000, 100_000), 200)
    measure_follow(
        Path(tempfile.mkdtemp()), (100,) if args.quick else (100, 1_000, 5_000), 5 if args.quick else 20
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
