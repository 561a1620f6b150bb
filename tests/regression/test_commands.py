"""``agentsm-runs record RUN`` writes a stored run as a recording; ``agentsm-runs rerecord FILE`` runs it
again against the live model and writes the new one; each failure is its own exit code and message."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

from returns.result import Success

from agentsm_fn.commands.runs._support import Exit
from agentsm_fn.commands.runs.commands import main
from agentsm_fn.durable import SqliteStore
from agentsm_fn.regression import load_recording, replay_recording
from tests.providers.conftest import Aimock
from tests.regression.refunds import REFUNDS, Desk
from tests.regression.weather import WEATHER, WEATHER_V2, Chat

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def stored(path: Path, order: str) -> str:
    store = SqliteStore.open(path).unwrap()
    try:
        REFUNDS.start(store, Desk(message="refund please", order=order), run_id=order)
    finally:
        store.close()
    return str(path)


def test_record_writes_the_run_to_standard_output_or_a_file_and_it_replays(tmp_path: Path) -> None:
    db = stored(tmp_path / "runs.db", "o-1")
    code, out, err = cli("--db", db, "record", "o-1")
    assert (code, err) == (0, "")
    (tmp_path / "printed.recording.json").write_text(out, encoding="utf-8")
    code, out, _ = cli("--db", db, "record", "o-1", "--out", str(tmp_path / "o-1.recording.json"))
    assert code == 0
    assert (
        out == f"{tmp_path / 'o-1.recording.json'}: run o-1 recorded (4 steps, 3 effects, finished in DONE)\n"
    )
    written = (tmp_path / "o-1.recording.json").read_text(encoding="utf-8")
    assert written == (tmp_path / "printed.recording.json").read_text(encoding="utf-8")
    recording = load_recording(tmp_path / "o-1.recording.json").unwrap()
    assert isinstance(replay_recording(recording, REFUNDS), Success)


def test_record_leaves_requests_out_when_asked(tmp_path: Path) -> None:
    db = stored(tmp_path / "runs.db", "o-1")
    code, out, _ = cli("--db", db, "record", "o-1", "--no-requests")
    assert code == 0 and '"request"' not in out and '"digest"' in out


def test_record_of_a_missing_run_or_a_run_the_machine_no_longer_replays_fails_with_its_code(
    tmp_path: Path,
) -> None:
    db = stored(tmp_path / "runs.db", "o-1")
    code, _, err = cli("--db", db, "record", "o-7")
    assert (code, err) == (int(Exit.NOT_FOUND), "agentsm-runs: no stored run o-7\n")
    code, _, err = cli("--db", db, "record", "o-1", "--machine", "tests.regression.refunds:OVERPAYS")
    assert code == int(Exit.RUN_FAILED)
    assert "run o-1 diverges at step 4 (journal entry 2): the machine asks for Refund" in err


def test_rerecord_refuses_a_corrupt_file_a_missing_machine_and_a_machine_without_performers(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.recording.json"
    broken.write_text('{"format": "agentsm-recording/1"}', encoding="utf-8")
    code, _, err = cli("rerecord", str(broken))
    assert (code, err) == (int(Exit.STORE), f"agentsm-runs: {broken}: machine: field: missing\n")
    db = stored(tmp_path / "runs.db", "o-1")
    good = tmp_path / "o-1.recording.json"
    assert cli("--db", db, "record", "o-1", "--out", str(good))[0] == 0
    code, _, err = cli("rerecord", str(good), "--machine", "tests.regression.nowhere:DESK")
    assert code == int(Exit.NOT_FOUND) and "cannot load tests.regression.nowhere:DESK" in err
    code, _, err = cli("rerecord", str(good), "--machine", "tests.regression.refunds:TABLE")
    assert code == int(Exit.NOT_FOUND) and "is not a Durable or a Machine" in err


def test_rerecord_runs_the_recording_again_against_the_live_model_and_writes_it_in_place(
    tmp_path: Path, aimock: Aimock
) -> None:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    try:
        WEATHER.start(store, Chat(question="What is the weather in Paris?"), run_id="paris").unwrap()
    finally:
        store.close()
    path = tmp_path / "paris.recording.json"
    assert cli("--db", str(tmp_path / "runs.db"), "record", "paris", "--out", str(path))[0] == 0
    before = path.read_text(encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentsm_fn.commands.runs",
            "rerecord",
            str(path),
            "--machine",
            WEATHER_V2.name,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=env,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert (
        done.stdout
        == f"{path}: re-recorded against {WEATHER_V2.name} (3 steps, 3 effects, finished in DONE)\n"
    )
    after = path.read_text(encoding="utf-8")
    assert "Today's weather for a city, in one word" in after and "Today's" not in before
    assert isinstance(replay_recording(load_recording(path).unwrap(), WEATHER_V2), Success)
    assert len(aimock.journal()) == 4  # two requests to record it, two to record it again
