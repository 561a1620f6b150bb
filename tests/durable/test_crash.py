"""Crash test: durable runs SIGKILLed at random points recover exactly, on each store.

A subprocess runs short durable runs one after another (a user machine, the ReAct agent
and the plan-and-execute agent, both on deterministic LLMs), logging every tool execution
to a file. The test waits until a random number of effects is journaled (polling the store, seeded RNG), kills
the process with SIGKILL, and recovers every run in this process. Then, for every run:
its final memory is the memory of an uninterrupted run; every outcome committed before
the kill is still in the journal, unchanged, and was not performed again; no tool that
is not retry-safe ran twice. An effect that was in flight at the kill and is not
retry-safe is never performed again: its outcome is unknown (see test_unknown_outcome).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import closing
from pathlib import Path

import attrs
import pytest
from returns.result import Failure

from agentsm_fn.core import Effect, EffectFailure
from agentsm_fn.core.effects import describe_effect
from agentsm_fn.durable import RunNotFound, RunStatus, SqliteStore, StoredRun, open_store
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.shell import Performer, Performers, Shell
from tests.durable import agents
from tests.durable.stores import execute

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("CRASH_SEED", "20261124"))
BATCHES = 12
RUNS_PER_BATCH = 10
EFFECTS = {"orders": 6, "react": 2 * agents.TOOL_CALLS + 1, "plan": 2 * agents.TOOL_CALLS + 2}


def committed(db: str, prefix: str) -> dict[tuple[str, int], bytes]:
    sql = "SELECT run_id, seq, outcome FROM journal WHERE run_id LIKE ? AND outcome IS NOT NULL"
    rows = execute(db, sql, (f"{prefix}-%",))
    return {(str(run_id), int(seq)): bytes(outcome) for run_id, seq, outcome in rows}  # type: ignore[call-overload]


def started(db: str, prefix: str) -> dict[str, int]:
    """Runs with an effect marked started and no outcome (in flight at the kill): run id -> seq."""
    sql = "SELECT run_id, seq FROM journal WHERE run_id LIKE ? AND outcome IS NULL AND NOT waiting"
    return {str(run_id): int(seq) for run_id, seq in execute(db, sql, (f"{prefix}-%",))}  # type: ignore[call-overload]


def uninterrupted_with_unknown(kind: str, seq: int, tmp_path: Path) -> object:
    """The memory of an uninterrupted run whose effect ``seq`` had the unknown outcome."""
    durable = agents.KINDS[kind][0]
    count = [0]

    def wrap(fn: Performer) -> Performer:
        def perform(effect: Effect[object]) -> object:
            number, count[0] = count[0], count[0] + 1
            if number == seq:
                return EffectFailure.unknown(describe_effect(effect), "in flight when its process died")
            return fn(effect)

        return perform

    def shell() -> Shell:
        made = durable.shell()
        return attrs.evolve(
            made, performers=Performers({k: wrap(f) for k, f in made.performers.sync.items()})
        )

    store = SqliteStore.open(tmp_path / f"unknown-{kind}-{seq}.db").unwrap()
    agents.COUNTS[:] = []
    try:
        return (
            attrs.evolve(durable, shell=shell)
            .start(store, agents.start_memory_of(kind))
            .unwrap()
            .snapshot.memory
        )
    finally:
        store.close()


def journaled(db: str, prefix: str) -> int:
    ((count,),) = execute(db, "SELECT count(*) FROM journal WHERE run_id LIKE ?", (f"{prefix}-%",))
    return int(str(count))


def uninterrupted(kind: str, tmp_path: Path) -> object:
    durable = agents.KINDS[kind][0]
    with closing(SqliteStore.open(tmp_path / f"reference-{kind}.db").unwrap()) as store:
        return durable.start(store, agents.start_memory_of(kind)).unwrap().snapshot.memory


def test_runs_killed_at_random_points_recover_with_nothing_lost_or_repeated(
    tmp_path: Path, store_db: str
) -> None:
    rng = random.Random(SEED)
    db, counts = store_db, tmp_path / "executions.log"
    open_store(db).unwrap().close()  # the tables, before the first worker
    expected = {kind: uninterrupted(kind, tmp_path) for kind in EFFECTS}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed_mid_run = 0
    recovered: list[tuple[str, str]] = []
    unknown: set[str] = set()
    for batch in range(BATCHES):
        kind = ("orders", "react", "plan")[batch % 3]
        prefix = f"{kind}{batch}"
        target = rng.randrange(1, RUNS_PER_BATCH * EFFECTS[kind])
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.durable.crash_worker",
                db,
                str(counts),
                kind,
                prefix,
                str(RUNS_PER_BATCH),
            ],
            cwd=ROOT,
            env=env,
        )
        deadline = time.monotonic() + 60
        while journaled(db, prefix) < target and worker.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        before = committed(db, prefix)
        in_flight = started(db, prefix)
        store = open_store(db).unwrap()
        agents.COUNTS[:] = [counts]
        durable, _ = agents.KINDS[kind]
        for index in range(RUNS_PER_BATCH):
            run_id = f"{prefix}-{index}"
            agents.RUN[0] = run_id
            agents.COUNTS[:] = [counts]
            found = store.get(run_id)
            if isinstance(found, Failure):
                assert isinstance(found.failure(), RunNotFound)
                done = durable.start(store, agents.start_memory_of(kind), run_id=run_id)
            elif found.unwrap().status is not RunStatus.FINISHED:
                killed_mid_run += 1
                done = durable.resume(store, run_id)
                if (
                    run_id in in_flight
                ):  # in flight at the kill and not retry-safe: unknown, the machine decides
                    unknown.add(run_id)
                    want = uninterrupted_with_unknown(kind, in_flight[run_id], tmp_path)
                    assert done.unwrap().snapshot.memory == want, f"{run_id}: memory after an unknown outcome"
                    recovered.append((kind, run_id))
                    continue
            else:
                done = replay_stored(store, durable.machine, run_id).map(
                    lambda snap: StoredRun(run_id="", snapshot=snap)
                )
            assert done.unwrap().snapshot.memory == expected[kind], f"{run_id}: recovered memory differs"
            recovered.append((kind, run_id))
        after = committed(db, prefix)
        lost = {key for key, outcome in before.items() if after.get(key) != outcome}
        assert not lost, f"committed outcomes lost or changed: {sorted(lost)}"
        store.close()
    assert len(recovered) >= 100
    assert len(unknown) < len(recovered) / 4
    assert killed_mid_run > 0
    executions = Counter(counts.read_text(encoding="utf-8").splitlines())
    not_retry_safe = {line: n for line, n in executions.items() if line.split()[1] in ("charge", "add")}
    repeated = {line: n for line, n in not_retry_safe.items() if n > 1}
    assert not repeated, f"tools that are not retry-safe ran more than once: {repeated}"
    per_run = Counter(line.split()[0] for line in not_retry_safe)
    for kind, run_id in recovered:
        expected_count = 3 if kind == "orders" else agents.TOOL_CALLS
        if run_id in unknown:  # the in-flight call ran at most once; the machine then went its failure route
            assert per_run[run_id] <= expected_count, run_id
        else:
            assert per_run[run_id] == expected_count, run_id
    summary = f"{killed_mid_run} killed mid-run; {len(unknown)} with a tool in flight"
    print(f"{len(recovered)} runs recovered ({summary})")


@pytest.mark.parametrize("kind", ["orders", "react", "plan"])
def test_an_effect_in_flight_at_the_kill_is_not_repeated_and_its_outcome_is_unknown(
    kind: str, tmp_path: Path, store_db: str
) -> None:
    db, counts = store_db, tmp_path / "executions.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CRASH_DIE_ON": "add 1" if kind != "orders" else "charge 1"}
    worker = subprocess.run(
        [sys.executable, "-m", "tests.durable.crash_worker", db, str(counts), kind, "k", "1"],
        cwd=ROOT,
        env=env,
        check=False,
        timeout=120,
    )
    assert worker.returncode == -signal.SIGKILL
    (seq,) = started(db, "k").values()
    store = open_store(db).unwrap()
    agents.COUNTS[:] = [counts]
    agents.RUN[0] = "k-0"
    done = agents.KINDS[kind][0].resume(store, "k-0").unwrap()
    assert done.finished
    assert done.snapshot.memory == uninterrupted_with_unknown(kind, seq, tmp_path)
    executions = counts.read_text(encoding="utf-8").splitlines()
    assert executions.count(f"k-0 {env['CRASH_DIE_ON']}") == 1  # performed before the kill, never again
    failure = store.journal("k-0", seq).unwrap()[0].outcome
    assert failure is not None and b"UNKNOWN" in failure
    store.close()
