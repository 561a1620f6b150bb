"""The command line: exit codes, formats, configuration, diagrams, import failures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from verification import cli

WORKER = "tests.verification.machines:WORKER"
DEAD_ROW = "tests.verification.machines:WORKER_DEAD_ROW"


def test_a_sound_machine_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([WORKER]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{WORKER}: 4 states, 4 rows: all 12 checked properties proved")
    assert out.rstrip().endswith("all properties proved")


def test_a_violation_exits_1_and_names_code_file_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([WORKER, DEAD_ROW]) == 1
    out = capsys.readouterr().out
    assert "SM007 no-dead-rows: row (IDLE, IGNORED) -> DONE can never fire" in out
    assert "at tests/verification/machines.py:" in out
    assert "1 of 2 machine(s) FAILED" in out


def test_unimportable_module_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["no_such_package_anywhere.agent:MACHINE"]) == 2
    assert (
        "cannot load no_such_package_anywhere.agent:MACHINE: ModuleNotFoundError" in capsys.readouterr().err
    )


def test_module_that_raises_on_import_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "boom_agent_module.py").write_text("raise RuntimeError('kaboom')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cli.main(["boom_agent_module:M"]) == 2
    assert "RuntimeError: kaboom" in capsys.readouterr().err


def test_attribute_that_is_not_a_machine_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tests.verification.machines:Phase"]) == 2
    assert "not an agentsm_fn Machine" in capsys.readouterr().err
    assert cli.main(["tests.verification.machines:NOPE"]) == 2
    assert cli.main(["no-colon"]) == 2


def test_a_durable_is_refused_with_the_name_of_its_machine(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "tests.durable.machines:DURABLE_ORDERS"
    assert cli.main([spec]) == 2
    assert f"DURABLE_ORDERS is a Durable, not an agentsm_fn Machine (verify its machine: {spec}.machine)" in (
        capsys.readouterr().err
    )
    assert cli.main([f"{spec}.machine"]) == 1  # loaded and verified (it has violations: exit 1, not 2)


def test_no_target_and_no_config_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main([]) == 2
    assert "[tool.agentsm_fn]" in capsys.readouterr().err


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    (tmp_path / "pyproject.toml").write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)


def test_config_lists_machines_and_ignores_with_reasons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(
        tmp_path,
        monkeypatch,
        f"""
[tool.agentsm_fn]
machines = ["{WORKER}", "{DEAD_ROW}"]

[[tool.agentsm_fn.ignore]]
code = "SM007"
machine = "{DEAD_ROW}"
reason = "kept for the next release"
""",
    )
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "ignored   SM007 no-dead-rows (1): kept for the next release" in out
    assert "[ignored: kept for the next release]" in out


def test_config_policies_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(
        tmp_path,
        monkeypatch,
        f"""
[tool.agentsm_fn]
machines = ["{WORKER}"]

[[tool.agentsm_fn.policy]]
machine = "{WORKER}"
never = "FAILED"
""",
    )
    assert cli.main([]) == 1
    assert "witness: IDLE --START--> WORK --BROKE--> FAILED" in capsys.readouterr().out


def test_policy_naming_an_unknown_state_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(
        tmp_path,
        monkeypatch,
        f'[tool.agentsm_fn]\nmachines = ["{WORKER}"]\n[[tool.agentsm_fn.policy]]\n'
        f'machine = "{WORKER}"\nfrom = "IDLE"\nto = "DONE"\nthrough = "NOPE"\n',
    )
    assert cli.main([]) == 2
    assert "NOPE" in capsys.readouterr().err


@pytest.mark.parametrize(
    "body",
    [
        '[tool.agentsm_fn]\nformat = "xml"\n',
        '[tool.agentsm_fn]\nmachines = "not-a-list"\n',
        '[tool.agentsm_fn]\n[[tool.agentsm_fn.ignore]]\ncode = "SM009"\n',
        '[tool.agentsm_fn]\n[[tool.agentsm_fn.ignore]]\ncode = "XX999"\nreason = "r"\n',
        "[tool.agentsm_fn\n",
    ],
)
def test_bad_config_exits_2(
    body: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, monkeypatch, body)
    assert cli.main([WORKER]) == 2
    assert "pyproject.toml" in capsys.readouterr().err


def test_json_and_sarif_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([DEAD_ROW, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["machines"][0]["violations"][0]["code"] == "SM007"
    assert cli.main([DEAD_ROW, "--format", "sarif"]) == 1
    assert json.loads(capsys.readouterr().out)["runs"][0]["results"][0]["ruleId"] == "SM007"


def test_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "report.json"
    assert cli.main([WORKER, "--format", "json", "--output", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["ok"] is True


def test_diagrams_are_written_and_left_alone_when_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "diagrams"
    args = [DEAD_ROW, "--diagrams", str(out), "--diagram-format", "mermaid", "--diagram-format", "dot"]
    assert cli.main(args) == 1
    files = sorted(p.name for p in out.iterdir())
    assert files == [
        "tests.verification.machines.WORKER_DEAD_ROW.dot",
        "tests.verification.machines.WORKER_DEAD_ROW.mmd",
    ]
    mermaid = out / "tests.verification.machines.WORKER_DEAD_ROW.mmd"
    assert "IDLE --> DONE: IGNORED !SM007" in mermaid.read_text(encoding="utf-8")
    before = mermaid.stat().st_mtime_ns
    assert cli.main(args) == 1
    assert mermaid.stat().st_mtime_ns == before


def test_command_line_ignore(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([DEAD_ROW, "--ignore", "SM007=known"]) == 0
    assert cli.main([DEAD_ROW, "--ignore", "SM007"]) == 2
    assert cli.main([DEAD_ROW, "--ignore", "SM999=x"]) == 2
    assert "CODE=REASON" in capsys.readouterr().err


def test_usage_errors_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--format", "xml", WORKER]) == 2
    assert cli.main(["--help"]) == 0
    assert "MODULE:ATTRIBUTE" in capsys.readouterr().out


def test_internal_error_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(cli, "verify_graph", broken)
    assert cli.main([WORKER]) == 3
    assert "internal error" in capsys.readouterr().err


def test_python_dash_m_runs_the_same_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verification", DEAD_ROW, "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert json.loads(done.stdout)["ok"] is False


def test_the_projects_own_machines_are_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert cli.main(["--format", "json", "--output", "/dev/null"]) == 0


def test_a_machine_whose_states_are_not_an_enum_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "odd_agent_module.py").write_text(
        "import enum\nfrom agentsm_fn import Machine\n"
        "class E(enum.Enum):\n    GO = 1\n"
        "M = Machine(states=int, events=E, initial=1, terminals=frozenset(), table={}, handlers={})\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cli.main(["odd_agent_module:M"]) == 2
    assert "states must be an enum class" in capsys.readouterr().err


def test_a_target_may_be_a_file_path_outside_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from verification.cli import main as verify_main

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "file_target_machine.py").write_text(
        "from agentsm_fn.agents.react import REACT_MACHINE as MACHINE\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert verify_main([f"{elsewhere / 'file_target_machine.py'}:MACHINE"]) == 0
    assert verify_main([f"{elsewhere / 'missing.py'}:MACHINE"]) == 2
    assert "no such file" in capsys.readouterr().err
