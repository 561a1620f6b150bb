"""``agentsm-eval``: each exit code means one thing, so a merge gate can read it."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from agentsm_fn.commands.evals._parser import Exit
from agentsm_fn.commands.evals.commands import main

ROOT = Path(__file__).resolve().parents[2]
DATASET = str(ROOT / "examples" / "evals_capitals.json")
TERSE = f"{ROOT / 'examples' / 'evals_capitals.py'}:TERSE"
CHATTY = f"{ROOT / 'examples' / 'evals_capitals.py'}:CHATTY"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "runs.db")


def run(db: str, *args: str) -> int:
    return main(["--db", db, *args])


def test_a_passing_experiment_exits_0_and_writes_json_and_junit(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    code = run(db, "run", DATASET, TERSE, "--name", "terse", "--json", str(report), "--junit", str(junit))
    assert code == Exit.OK
    assert "passed 4/4 (100%)" in capsys.readouterr().out
    assert json.loads(report.read_text())["totals"]["passes"] == 4
    assert ET.parse(junit).getroot().get("failures") == "0"


def test_a_regression_against_the_baseline_exits_6_and_a_low_score_exits_1(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(db, "run", DATASET, TERSE, "--name", "terse") == Exit.OK
    assert run(db, "run", DATASET, CHATTY, "--name", "chatty", "--baseline", "terse") == Exit.REGRESSED
    assert "chatty against terse: 4 regressed" in capsys.readouterr().out
    assert run(db, "run", DATASET, CHATTY, "--name", "chatty", "--fail-under", "0.9") == Exit.BELOW
    assert run(db, "run", DATASET, CHATTY, "--name", "chatty", "--fail-under", "0.7") == Exit.OK
    assert run(db, "compare", "terse", "chatty") == Exit.REGRESSED
    assert run(db, "compare", "terse", "terse") == Exit.OK
    assert run(db, "report", "chatty", "--format", "junit") == Exit.OK
    assert run(db, "list") == Exit.OK


def test_an_experiment_of_another_program_under_the_same_name_is_refused_with_7(db: str) -> None:
    assert run(db, "run", DATASET, TERSE, "--name", "same") == Exit.OK
    assert run(db, "run", DATASET, CHATTY, "--name", "same") == Exit.REFUSED


def test_what_cannot_be_found_exits_3(db: str) -> None:
    assert run(db, "run", DATASET, "no_such_module:AGENT") == Exit.NOT_FOUND
    assert run(db, "run", DATASET, TERSE, "--baseline", "never-ran") == Exit.NOT_FOUND
    assert run(db, "report", "never-ran") == Exit.NOT_FOUND
    assert run(db, "compare", "a", "b") == Exit.NOT_FOUND


def test_a_bad_dataset_exits_4_naming_case_and_field(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "d", "cases": [{"name": "fr", "input": "x", "expect": "Paris"}]}))
    assert run(db, "run", str(bad), TERSE) == Exit.DATASET
    assert "case 'fr', field 'expect': not a field here" in capsys.readouterr().err
    misfit = tmp_path / "misfit.json"
    misfit.write_text(json.dumps({"name": "d", "cases": [{"name": "fr", "input": {"tsak": "x"}}]}))
    assert run(db, "run", str(misfit), TERSE) == Exit.DATASET
    assert "case 'fr': AgentMemory has no field tsak" in capsys.readouterr().err
    assert run(db, "run", str(tmp_path / "none.json"), TERSE) == Exit.DATASET


def test_bad_usage_exits_2_and_a_store_that_cannot_open_exits_5(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["run", DATASET])
    assert usage.value.code == Exit.USAGE
    assert run(str(tmp_path), "list") == Exit.STORE  # a folder is no store


def test_the_command_runs_as_a_module(db: str) -> None:
    command = [
        sys.executable,
        "-m",
        "agentsm_fn.commands.evals",
        "--db",
        db,
        "run",
        DATASET,
        TERSE,
        "--no-progress",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == Exit.OK, done.stderr
    assert "passed 4/4" in done.stdout


class Terminal(io.StringIO):
    """A stderr that says it is a terminal (what a developer's shell is)."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_a_progress_bar_is_drawn_on_stderr_and_cleared(
    db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(db, "run", DATASET, TERSE, "--name", "bar") == Exit.OK
    drawn = terminal.getvalue()
    assert "4/4" in drawn and re.search(r"(france|japan|peru|kenya) pass", drawn)  # the bar's last words
    assert "━" in drawn and "━" not in capsys.readouterr().out  # the report on stdout holds no bar
    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert run(db, "run", DATASET, TERSE, "--name", "quiet", "--no-progress") == Exit.OK
    assert quiet.getvalue() == ""
