"""The server's figures (benchmarks/server.py runs them after the run stream's).

* list runs: 10,000 runs in a SQLite store, served by uvicorn, listed a page (50) at a time over
  HTTP; ms per page (median, 95th percentile, worst), also filtered by status and by machine, and
  with the store's own query left out (``runs()`` filtered in Python) as the baseline. Target:
  under 50 ms per page.
* cross-process latency: a run executing in another process (one effect every 30 ms); for each
  effect, the time from its outcome's clock reading in that process (taken just before the
  commit) to its ``EffectCompleted`` reaching an SSE client of the server. Target: median under 100 ms.
* many clients: 20 runs executing in another process at once, 5 SSE clients on each (100); every
  client must receive every event of its run, in order, none twice (checked against the run's
  stored events once it finished).

    python benchmarks/server.py [--quick]          # runs these after the stream section
"""

from __future__ import annotations

import asyncio
import enum
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import ClassVar, Literal

import attrs
import httpx
import uvicorn
from httpx_sse import aconnect_sse
from returns.result import Failure, Result

from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable, NewRun, RunStatus, SqliteStore, open_store
from agentsm_fn.durable.running.streaming import stored_events
from agentsm_fn.durable.stores.protocol.pages import RunPages
from agentsm_fn.server import create_app
from agentsm_fn.shell import Performers, Shell
from agentsm_fn.stream import EffectCompleted, event_from_json, history_position

HERE = Path(__file__).resolve().parent


class S(enum.Enum):
    WORKING = "working"
    DONE = "done"


class E(enum.Enum):
    WORKED = "worked"
    ENOUGH = "enough"


@attrs.frozen
class Work(Effect[float]):
    """One effect of a benchmark run (a stand-in for an LLM or tool call); its outcome is when it ended."""

    outcome_types: ClassVar[tuple[type, ...]] = (float,)
    retry_safe = True
    n: int
    seconds: float


@attrs.frozen(kw_only=True)
class Job:
    effects: int
    seconds: float
    done: int = 0


def work(job: Job) -> Result[tuple[Literal[E.ENOUGH], Job] | Perform[float, Job], Fault]:
    return emit(E.ENOUGH, job) if job.done >= job.effects else perform(Work(job.done, job.seconds), job)


def worked(job: Job, _: float) -> Result[tuple[Literal[E.WORKED], Job], Fault]:
    return emit(E.WORKED, attrs.evolve(job, done=job.done + 1))


JOBS: Machine[S, E, Job] = define_machine(
    name="jobs",
    states=S,
    events=E,
    initial=S.WORKING,
    terminals={S.DONE},
    table={(S.WORKING, E.WORKED): S.WORKING, (S.WORKING, E.ENOUGH): S.DONE},
    handlers={S.WORKING: effectful(work, worked)},
    budgeted={S.WORKING},
    safety_cap=lambda job: 10 + 3 * job.effects,
)


async def _perform(effect: Work) -> float:
    await asyncio.sleep(effect.seconds)  # the work an LLM or a tool would take
    return time.time()


JOB_RUNS = Durable(
    name="_serving:JOB_RUNS", machine=JOBS, shell=lambda: Shell(Performers().on(Work, _perform))
)
"""The benchmark's runs: effects that take ``seconds`` each, performed in another process."""


# ---- the other process ----------------------------------------------------------------------------------


async def _run_jobs(db: str, runs: int, effects: int, seconds: float) -> None:
    with closing(open_store(db).unwrap()) as store:
        jobs = [
            JOB_RUNS.astart(store, Job(effects=effects, seconds=seconds), f"job-{n}") for n in range(runs)
        ]
        for done in await asyncio.gather(*jobs):
            assert not isinstance(done, Failure), done


def child(argv: list[str]) -> int:
    """``python benchmarks/_serving.py DB RUNS EFFECTS SECONDS``: run the jobs in this (other) process."""
    db, runs, effects, seconds = argv
    asyncio.run(_run_jobs(db, int(runs), int(effects), float(seconds)))
    return 0


def _start_jobs(db: str, runs: int, effects: int, seconds: float) -> subprocess.Popen[bytes]:
    script = [sys.executable, str(HERE / "_serving.py"), db, str(runs), str(effects), str(seconds)]
    return subprocess.Popen(script, cwd=HERE)


# ---- the server, in a thread of this process ------------------------------------------------------------


class _Served:
    """uvicorn serving an app on 127.0.0.1 (a free port) in a thread, until closed."""

    def __init__(self, store: SqliteStore) -> None:
        app = create_app(store, [JOB_RUNS])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:  # a benchmark may wait by polling; the tests use an event
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# ---- list runs ------------------------------------------------------------------------------------------


def _fill(store: SqliteStore, count: int) -> None:
    """``count`` runs of three machines, one in ten waiting, as a store holds them after a while."""
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
    with closing(sqlite3.connect(store.path)) as db, db:  # setup only: one run in ten waits for an answer
        db.execute("UPDATE runs SET status = 'waiting' WHERE CAST(substr(id, 5) AS INTEGER) % 10 = 0")


def _page_times(url: str, params: dict[str, str], pages: int) -> list[float]:
    times: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        cursor = None
        for _ in range(pages):
            started = time.perf_counter()
            page = http.get("/runs", params=params | ({"cursor": cursor} if cursor else {})).json()
            times.append((time.perf_counter() - started) * 1000)
            cursor = page["next"]
            if cursor is None:
                break
    return times


class _NoPages:
    """The same store seen without its own page query (``runs()`` filtered in Python): the baseline."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> object:
        if name == "page":
            raise AttributeError(name)
        return getattr(self._store, name)


QUERIES: tuple[tuple[str, dict[str, str]], ...] = (
    ("all", {}),
    ("status=waiting", {"status": "waiting"}),
    ("machine", {"machine": "app:M1"}),
)


def measure_list(count: int, pages: int) -> None:
    print(f"\nlist runs: {count:,} runs in the store, GET /runs pages of 50 over HTTP, ms per page")
    print(f"{'query':<44} {'pages':>5} {'median':>7} {'p95':>7} {'worst':>7}")
    folder = tempfile.mkdtemp()
    with closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store:
        _fill(store, count)
        assert isinstance(store, RunPages)
        worst = 0.0
        for label, target in (
            ("the store's page query", store),
            ("runs() filtered (baseline)", _NoPages(store)),
        ):
            served = _Served(target)  # type: ignore[arg-type]  # _NoPages forwards every RunStore method
            try:
                for query, params in (
                    ("all", {}),
                    ("status=waiting", {"status": "waiting"}),
                    ("machine", {"machine": "app:M1"}),
                ):
                    times = _page_times(served.url, params | {"limit": "50"}, pages)
                    if target is store:
                        worst = max(worst, statistics.median(times))
                    print(
                        f"{label + ', ' + query:<44} {len(times):>5} {statistics.median(times):>7.1f}"
                        f" {_percentile(times, 0.95):>7.1f} {max(times):>7.1f}"
                    )
            finally:
                served.close()
        print(f"listing runs: {worst:.1f} ms per page at the median, worst query (target < 50 ms)")


# ---- streams of runs executing in another process -------------------------------------------------------


async def _follow(url: str, run_id: str, arrivals: dict[int, float] | None) -> list[str]:
    """Every event of the run as an SSE client gets it (until it ends); arrival times of completions."""
    got: list[str] = []
    async with httpx.AsyncClient(timeout=120) as http:
        while True:  # the run exists once the other process wrote its first effect
            found = await http.get(f"{url}/runs/{run_id}")
            if found.status_code == 200:
                break
            await asyncio.sleep(0.005)
        async with aconnect_sse(http, "GET", f"{url}/runs/{run_id}/events") as source:
            async for sse in source.aiter_sse():
                now = time.time()
                assert sse.event != "error", sse.data
                got.append(sse.data)
                event = event_from_json(sse.data).unwrap()
                if arrivals is not None and isinstance(event, EffectCompleted) and history_position(event):
                    arrivals[len(arrivals)] = now
    return got


def measure_latency(effects: int) -> None:
    print(f"\ncross-process: a run in another process, {effects} effects of 30 ms each")
    folder = tempfile.mkdtemp()
    db = str(Path(folder) / "runs.db")
    with closing(SqliteStore.open(db).unwrap()) as store:
        served = _Served(store)
        try:
            worker = _start_jobs(db, 1, effects, 0.03)
            arrivals: dict[int, float] = {}
            try:
                asyncio.run(_follow(served.url, "job-0", arrivals))
            finally:
                assert worker.wait(120) == 0
        finally:
            served.close()
        rows = store.journal("job-0").unwrap()
        latencies = [(arrivals[row.seq] - (row.at or 0.0)) * 1000 for row in rows if row.seq in arrivals]
        assert len(latencies) == effects, (len(latencies), effects)
        median, p90 = statistics.median(latencies), _percentile(latencies, 0.9)
        print(
            f"event latency (committed there -> SSE client here): median {median:.1f} ms, p90 {p90:.1f} ms,"
            f" worst {max(latencies):.1f} ms over {len(latencies)} effects (target: median < 100 ms)"
        )


def measure_clients(runs: int, per_run: int, effects: int) -> None:
    clients = runs * per_run
    print(
        f"\nmany clients: {runs} runs executing in another process, {per_run} SSE clients on each ({clients})"
    )
    folder = tempfile.mkdtemp()
    db = str(Path(folder) / "runs.db")
    with closing(SqliteStore.open(db).unwrap()) as store:
        served = _Served(store)
        try:
            worker = _start_jobs(db, runs, effects, 0.05)

            async def everyone() -> list[list[str]]:
                ids = [f"job-{n}" for n in range(runs) for _ in range(per_run)]
                return list(await asyncio.gather(*(_follow(served.url, run_id, None) for run_id in ids)))

            try:
                streams = asyncio.run(everyone())
            finally:
                assert worker.wait(120) == 0
        finally:
            served.close()
        whole, ordered, twice = 0, 0, 0
        for index, stream in enumerate(streams):
            run_id = f"job-{index // per_run}"
            expected = [
                e for e in stored_events(store, JOB_RUNS, run_id).unwrap() if history_position(e) is not None
            ]
            got = [event_from_json(data).unwrap() for data in stream]
            history = [e for e in got if history_position(e) is not None]
            positions = [history_position(e) or 0 for e in history]
            twice += len(positions) - len(set(positions))
            ordered += positions == sorted(positions)
            whole += history == expected and type(got[-1]).__name__ == "Finished"
        assert store.runs().map(lambda rs: all(r.status is RunStatus.FINISHED for r in rs)).unwrap()
        print(
            f"{whole}/{clients} clients received every event of their run, {ordered}/{clients} in order,"
            f" {twice} events twice (target: all, all, 0)"
        )


def measure_serving(quick: bool) -> None:
    """The server's three sections, small with ``quick`` (a smoke run)."""
    measure_list(1_000 if quick else 10_000, 5 if quick else 40)
    measure_latency(5 if quick else 40)
    measure_clients(2 if quick else 20, 2 if quick else 5, 3 if quick else 10)


if __name__ == "__main__":  # the other process: import this file as the module the server knows
    sys.path.insert(0, str(HERE))
    from _serving import child as serving_child

    raise SystemExit(serving_child(sys.argv[1:]))
