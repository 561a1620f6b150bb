"""The verifier on teams: child terminals (SM016), team termination (SM017), nesting depth (SM018)."""

from __future__ import annotations

import enum
import json

import attrs
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.core.machine import Machine
from agentsm_fn.teams import delegate
from tests.verification import team_machines as t
from verification import cli, render_json, render_sarif, render_text, verify
from verification.report_json import SCHEMA_PATH
from verification.team import verify_team


class Ev(enum.Enum):
    """Parent events for the random mappings."""

    E0 = 0
    E1 = 1
    E2 = 2


def codes(machine: Machine[t.P, Ev, int]) -> list[str]:
    return [v.code for v in verify(machine).violations]


def test_a_parent_that_maps_every_outcome_is_sound_and_reports_its_depth() -> None:
    report = verify(t.PARENT)
    assert report.ok and report.sound
    assert report.nesting is not None and report.nesting.depth == 1
    assert report.nesting.programs == (t.PROGRAM,)
    assert {v.code: v.status for v in report.verdicts if v.code in {"SM016", "SM017", "SM018"}} == {
        "SM016": "proved",
        "SM017": "proved",
        "SM018": "proved",
    }


def test_a_machine_that_delegates_to_no_child_has_no_team_verdicts() -> None:
    report = verify(t.CHILD)
    assert report.nesting is None
    assert {v.status for v in report.verdicts if v.code in {"SM016", "SM017", "SM018"}} == {"not applicable"}


def test_an_unmapped_child_terminal_is_sm016_naming_machine_state_program_and_terminal() -> None:
    (found,) = [v for v in verify(t.PARENT_UNMAPPED).violations if v.code == "SM016"]
    assert found.message.startswith(
        f"unmapped: ASKING delegates to {t.PROGRAM}, whose outcome 'terminal REFUSED'"
    )
    assert found.states == ("ASKING", f"{t.PROGRAM}:REFUSED")
    assert found.location is not None and found.location.path.endswith("team_machines.py")
    assert "ends=" in found.hint


def test_a_mapped_terminal_without_a_row_is_sm016_and_not_sm008() -> None:
    found = [v for v in verify(t.PARENT_NO_ROW).violations if v.code in {"SM008", "SM016"}]
    assert [(v.code, v.events) for v in found] == [("SM016", ("NO",))]
    assert "the table has no row (ASKING, NO)" in found[0].message


def test_the_finding_is_in_the_text_json_and_sarif_reports() -> None:
    report = verify(t.PARENT_UNMAPPED, label="shop:UNMAPPED")
    assert "VIOLATED  SM016 child-terminals (1)" in render_text([report])
    assert f"children: nested 1 deep; programs: {t.PROGRAM}" in render_text([report])
    document = json.loads(render_json([report]))
    jsonschema.validate(document, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    machine = document["machines"][0]
    assert [v["code"] for v in machine["violations"] if v["code"] == "SM016"] == ["SM016"]
    assert machine["nesting"] == {"depth": 1, "programs": [t.PROGRAM]}
    sarif = json.loads(render_sarif([report]))
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "SM016"]
    assert "REFUSED" in result["message"]["text"] and result["properties"]["machine"] == "shop:UNMAPPED"
    assert "SM016" in [rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]]


def test_nested_children_give_their_depth_and_recursion_is_sm018() -> None:
    nesting = verify(t.GRANDPARENT).nesting
    assert nesting is not None and nesting.depth == 2
    report = verify(t.RECURSIVE)
    (found,) = [v for v in report.violations if v.code == "SM018"]
    assert "recursion:" in found.message and "RECURSIVE_RUN:ASKING delegates to" in found.message
    assert report.nesting is not None and report.nesting.depth is None
    assert "children: nest without bound (SM018)" in render_text([report])


def test_a_handoff_cycle_where_no_agent_can_finish_is_sm017_with_machines_and_states() -> None:
    *agents, team = verify_team(t.LOOPING_TEAM, label="app:LOOPING")
    assert [r.machine for r in agents] == ["app:LOOPING[app:TRIAGE]", "app:LOOPING[app:REFUNDS]"]
    (found,) = team.violations
    assert found.code == "SM017"
    assert "team livelock across app:TRIAGE, app:REFUNDS" in found.message
    assert set(found.states) >= {"app:TRIAGE:ANSWERING", "app:TRIAGE:HANDED_OFF", "app:REFUNDS:ANSWERING"}
    assert found.witness is not None
    assert "app:TRIAGE:HANDED_OFF --handoff to app:REFUNDS--> app:REFUNDS:ANSWERING" in found.witness.render()
    assert not team.ok and not team.sound


def test_a_team_where_an_agent_can_finish_has_no_finding() -> None:
    *_, team = verify_team(t.TEAM)
    assert team.ok and team.violations == ()
    assert {v.code: v.status for v in team.verdicts if v.status != "not applicable"} == {"SM017": "proved"}


def test_a_team_of_parents_reports_the_deepest_nesting() -> None:
    from agentsm_fn.teams.team import Team

    *_, team = verify_team(Team(agents={"a": t.PARENT, "b": t.GRANDPARENT}))
    assert team.nesting is not None and team.nesting.depth == 2


def test_the_command_line_takes_a_team_target(capsys: pytest.CaptureFixture[str]) -> None:
    ignored = "--ignore=SM002=the agents share one state enum"
    assert cli.main(["tests.verification.team_machines:LOOPING_TEAM", ignored]) == 1
    out = capsys.readouterr().out
    assert "SM017 team-termination: team livelock across app:TRIAGE, app:REFUNDS" in out
    assert out.rstrip().endswith("1 of 3 machine(s) FAILED, 1 violation(s)")
    assert cli.main(["tests.verification.team_machines:TEAM", ignored, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [m["machine"] for m in document["machines"]][-1] == "tests.verification.team_machines:TEAM"


def test_a_team_whose_handoff_names_an_unknown_agent_is_a_load_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["tests.verification.team_machines:BROKEN_TEAM"]) == 2
    assert "no agent 'app:NOBODY' in the team" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(
    ends=st.dictionaries(st.sampled_from(list(t.C)[1:]), st.sampled_from(list(Ev))),
    failed=st.none() | st.sampled_from(list(Ev)),
    cancelled=st.none() | st.sampled_from(list(Ev)),
    rows=st.sets(st.sampled_from(list(Ev))),
)
def test_sm016_holds_exactly_when_every_outcome_has_an_event_with_a_row(
    ends: dict[t.C, Ev], failed: Ev | None, cancelled: Ev | None, rows: set[Ev]
) -> None:
    handler = delegate(
        program="app:CHILD", child=t.CHILD, start=lambda n: n, ends=ends, failed=failed, cancelled=cancelled
    )
    machine = Machine(
        name="random",
        states=t.P,
        events=Ev,
        initial=t.P.ASKING,
        terminals=frozenset({t.P.DONE}),
        table={(t.P.ASKING, e): t.P.DONE for e in rows},
        handlers={t.P.ASKING: handler},
    )
    routes = [ends.get(t.C.APPROVED), ends.get(t.C.REFUSED), failed, cancelled]
    unrouted = [e for e in routes if e is None or e not in rows]
    assert codes(machine).count("SM016") == len(unrouted)


def test_a_handoff_that_may_happen_at_any_terminal_leaves_the_terminals_ends_of_the_team() -> None:
    from agentsm_fn.teams.team import Handoff, Team

    both_ways = Team(
        agents={"a": t.TRIAGE, "b": t.REFUNDS},
        handoffs=(
            Handoff(source="a", target="b", machine=t.REFUNDS),
            Handoff(source="b", target="a", machine=t.TRIAGE),
        ),
    )
    *_, team = verify_team(both_ways)
    assert team.violations == ()


def test_a_fan_out_whose_some_failed_event_has_no_row_is_sm016() -> None:
    machine = attrs.evolve(t.FANNING, name="fan", table={(t.P.ASKING, t.PE.OK): t.P.DONE})
    (found,) = [v for v in verify(machine).violations if v.code == "SM016"]
    assert found.message.startswith(f"fan: ASKING fans out to {t.PROGRAM}, whose outcome 'some child failed")
    assert found.events == ("NO",)


def test_an_agent_that_hands_off_to_itself_and_cannot_finish_is_sm017() -> None:
    from agentsm_fn.teams.team import Handoff, Team

    alone = Team(
        agents={"a": t.TRIAGE},
        handoffs=(Handoff(source="a", target="a", machine=t.TRIAGE, at=t.A.HANDED_OFF),),
    )
    *_, team = verify_team(alone)
    assert [v.code for v in team.violations] == ["SM017"]


@settings(max_examples=80, deadline=None)
@given(
    answers=st.lists(st.booleans(), min_size=1, max_size=4),
    pairs=st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=8),
)
def test_sm017_holds_exactly_when_every_agent_the_conversation_can_reach_can_still_reach_an_end(
    answers: list[bool], pairs: set[tuple[int, int]]
) -> None:
    from agentsm_fn.teams.team import Handoff, Team

    n = len(answers)
    machines = [t.REFUNDS_ANSWERS if can else t.TRIAGE for can in answers]
    edges = {(i, j) for i, j in pairs if i < n and j < n}
    handoffs = tuple(
        Handoff(source=f"a{i}", target=f"a{j}", machine=machines[j], at=t.A.HANDED_OFF)
        for i, j in sorted(edges)
    )
    team = Team(agents={f"a{i}": m for i, m in enumerate(machines)}, handoffs=handoffs)
    *_, whole = verify_team(team)

    def after(i: int) -> set[int]:
        return {j for k, j in edges if k == i}

    def reached(start: int) -> set[int]:
        seen, todo = {start}, [start]
        while todo:
            for j in after(todo.pop()) - seen:
                seen.add(j)
                todo.append(j)
        return seen

    ends = {i for i in range(n) if answers[i] or not after(i)}  # it answers, or its hand-off state ends
    trapped = any(not (reached(r) & ends) for r in reached(0))
    assert (whole.violations != ()) == trapped
    assert all(v.code == "SM017" for v in whole.violations)
