"""``agentsm-verify --explore``: the project's explorations, a planted bug with a test to paste, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from verification.cli import EXIT_ERROR, EXIT_OK, EXIT_VIOLATED, main
from verification.kit import RunViolation

ROOT = Path(__file__).resolve().parents[2]

TYPO = """
[tool.agentsm_fn]
[[tool.agentsm_fn.explore]]
machine = "tests.explore.planted:ORDERS_WITH_A_TYPO"
starts = "examples/explore_orders.py:STARTS"
outcomes = "examples/explore_orders.py:OUTCOMES"
properties = "examples/explore_orders.py:PROPERTIES"
"""


def config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_projects_examples_are_explored_to_exhaustion(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["--explore"]) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "orders: 56 distinct states, 106 edges, depth 4, exhausted: yes",
        "triage: 1,392 distinct states, 1,092 edges, depth 9, exhausted: yes",
    ]


def test_a_target_chooses_its_explorations(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["--explore", "examples.property_testing.triage:TRIAGE"]) == EXIT_OK
    assert capsys.readouterr().out.startswith("triage: ")


def test_a_planted_bug_is_reported_with_its_run_and_a_test_that_replays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["--explore", "--config", config(tmp_path, TYPO)]) == EXIT_VIOLATED
    out = capsys.readouterr().out
    assert "exhausted: no" in out and "3. CHARGING --CHARGED--> DONE" in out
    pasted = out.split("paste this test to replay it:\n", 1)[1]
    assert "from explore_orders import PROPERTIES" in pasted
    assert pasted.lstrip().startswith("# examples/ must be on sys.path")
    namespace: dict[str, object] = {}
    exec(compile(pasted, "<pasted>", "exec"), namespace)
    test = namespace["test_explored_counterexample"]
    assert callable(test)
    with pytest.raises(RunViolation, match="no charge above 1,000 without the manager's yes"):
        test()


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('machine = "examples.property_testing.triage:TRIAGE"', "explore #1 needs starts"),
        ('machine = "m:M"\nstarts = "m:S"\ncolour = "red"', "explore #1: unknown key colour"),
        ('machine = "m:M"\nstarts = "m:S"\ndepth = 0', "depth must be a positive integer"),
        ('machine = "no_such_module:M"\nstarts = "m:S"', "cannot load no_such_module:M"),
        (
            'machine = "examples.property_testing.triage:TRIAGE"\n'
            'starts = "examples.property_testing.triage:TRIAGE"',
            "is a Machine, not an iterable of start memories",
        ),
        (
            'machine = "examples/durable_orders.py:ORDER_MACHINE"\n'
            'starts = "examples/explore_orders.py:STARTS"',
            "cannot list the values of",
        ),
    ],
    ids=["no starts", "unknown key", "zero depth", "no module", "not starts", "endless outcomes"],
)
def test_a_wrong_table_is_an_error_that_names_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    table: str,
    says: str,
) -> None:
    monkeypatch.chdir(ROOT)
    text = f"[tool.agentsm_fn]\n[[tool.agentsm_fn.explore]]\n{table}\n"
    assert main(["--explore", "--config", config(tmp_path, text)]) == EXIT_ERROR
    assert says in capsys.readouterr().err


TRIAGE = "examples.property_testing.triage:TRIAGE"


@pytest.mark.parametrize(
    ("text", "targets", "said"),
    [
        ("[tool.agentsm_fn]\n", [], "no [[tool.agentsm_fn.explore]] table"),
        (
            "[tool.agentsm_fn]\n",
            ["examples.property_testing.triage:TRIAGE"],
            "no [[tool.agentsm_fn.explore]]",
        ),
        (TYPO, ["examples.property_testing.triage:TRIAGE"], "no table explores examples.property_testing"),
    ],
)
def test_exploring_nothing_is_an_error_never_a_pass(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    targets: list[str],
    said: str,
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["--explore", *targets, "--config", config(tmp_path, text)]) == EXIT_ERROR
    assert said in capsys.readouterr().err
