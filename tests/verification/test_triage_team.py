"""The verifier on the triage example's team (examples/triage_refunds.py:TEAM): nothing to find.

The team is in ``[tool.agentsm_fn] machines`` of pyproject.toml, so CI and the pre-commit hook
prove it. A copy with a planted handoff cycle (each agent hands back at every end) is SM017;
SM016 and the other planted faults are tests/verification/test_teams.py's.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from agentsm_fn.teams import Handoff
from tests.example_modules import example
from verification import cli
from verification.config import read_config
from verification.team import verify_team

ROOT = Path(__file__).resolve().parents[2]
TARGET = "examples/triage_refunds.py:TEAM"
triage_refunds = example("triage_refunds")


def test_the_team_is_among_the_machines_ci_proves_and_the_verifier_finds_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert TARGET in read_config(ROOT / "pyproject.toml").unwrap().machines
    monkeypatch.chdir(ROOT)
    assert cli.main([TARGET]) == 0
    out = capsys.readouterr().out
    assert "proved    SM017 team-termination" in out
    assert out.rstrip().endswith("3 machine(s), all properties proved")
    *agents, team = verify_team(triage_refunds.TEAM)
    assert [r.machine for r in agents] == [
        "triage_refunds:TEAM[triage_refunds:TRIAGE]",
        "triage_refunds:TEAM[triage_refunds:REFUNDS]",
    ]
    assert all(r.violations == () for r in (*agents, team))


def test_a_copy_whose_agents_hand_back_at_every_end_is_a_team_livelock() -> None:
    team = triage_refunds.TEAM
    triage, refunds = team.agents
    machine = team.agents[refunds]
    back = [
        Handoff(source=refunds, target=triage, machine=team.agents[triage], at=end)
        for end in machine.terminals
    ]
    forth = [Handoff(source=triage, target=refunds, machine=machine, at=end) for end in machine.terminals]
    *_, looping = verify_team(attrs.evolve(team, handoffs=(*forth, *back)))
    (found,) = looping.violations
    assert found.code == "SM017"
    assert found.message.startswith("team livelock across triage_refunds:TRIAGE, triage_refunds:REFUNDS")
