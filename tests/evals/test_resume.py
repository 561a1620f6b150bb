"""An experiment killed mid-way (SIGKILL, a real process) and run again finishes with every case run once."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from contextlib import closing
from pathlib import Path

from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.evals.experiment import case_run_id
from agentsm_fn.evals.stored import experiment_runs

ROOT = Path(__file__).resolve().parents[2]


def worker(db: Path, log: Path, *die_on: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tests.evals.kill_worker", str(db), str(log), *die_on]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def test_a_killed_experiment_resumes_and_runs_every_case_exactly_once(tmp_path: Path) -> None:
    db, log = tmp_path / "runs.db", tmp_path / "notes.log"
    killed = worker(db, log, "task 3")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    noted_before = log.read_text().splitlines()
    assert "note task 3" in noted_before and len(noted_before) < 6
    with closing(SqliteStore.open(db).unwrap()) as store:
        judged_before = {r.case for r in experiment_runs(store, "noted").unwrap()}
        assert len(judged_before) < 6
    again = worker(db, log)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == f"ran {6 - len(judged_before)}"  # judged cases were not run again
    notes = Counter(log.read_text().splitlines())
    assert set(notes.values()) == {1}, notes  # no tool ever ran twice
    with closing(SqliteStore.open(db).unwrap()) as store:
        runs = experiment_runs(store, "noted").unwrap()
        for run in runs:  # a note not written was in flight beside c3's when the process died:
            if f"note task {run.case[1:]}" not in notes:  # not retry-safe, so never run again
                journal = store.journal(run.run_id).unwrap()
                assert run.case != "c3" and any(  # its outcome stays "unknown"
                    row.outcome is None or b"in flight when its process died" in row.outcome
                    for row in journal
                ), run.case
        assert len(notes) >= 5  # two cases run at once: at most the one beside c3 was cut
        assert sorted(r.case for r in runs) == [f"c{i}" for i in range(6)]
        assert {r.run_id for r in runs} == {case_run_id("noted", f"c{i}", 0) for i in range(6)}
        assert all(store.get(r.run_id).unwrap().status is RunStatus.FINISHED for r in runs)
        cut = next(r for r in runs if r.case == "c3")  # its note's outcome was lost with the process
        assert cut.passed and cut.status == "finished"
        assert len(store.runs().unwrap()) == 6  # one stored run per case, none started twice
