"""Child runs with no store: each child runs inline in the parent's process, its outcome the effect's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentsm_fn import Shell, run
from agentsm_fn.durable.running.in_process import in_process_children
from agentsm_fn.teams import ChildCancelled, ChildFailed, ChildFinished, Gathered
from tests.teams.programs import CHILD, DELEGATOR, FANNER, NOTES_ENV, STRICT, Boss, P

SHELL = Shell(in_process_children([CHILD]))


@pytest.mark.parametrize(
    ("n", "state", "outcome"),
    [
        (4, P.DONE, ChildFinished(run_id="child.c0", program=CHILD.name, state="DONE", result=8)),
        (-1, P.DONE, ChildFinished(run_id="child.c0", program=CHILD.name, state="REFUSED", result=-1)),
        (13, P.GAVE_UP, None),
    ],
)
def test_a_delegating_parent_gets_its_child_outcome_and_routes_it(
    n: int, state: P, outcome: ChildFinished | None
) -> None:
    snapshot = run(DELEGATOR.machine, Boss(n=n), SHELL).unwrap()
    assert snapshot.state is state
    if outcome is None:
        assert isinstance(snapshot.memory.outcome, ChildFailed)
        assert "thirteen is unlucky" in snapshot.memory.outcome.reason
    else:
        assert snapshot.memory.outcome == outcome


def test_a_fan_out_gathers_every_child_in_order_and_each_effect_runs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes"
    monkeypatch.setenv(NOTES_ENV, str(notes))
    snapshot = run(FANNER.machine, Boss(items=(1, 2, 3, 4)), SHELL).unwrap()
    assert snapshot.state is P.DONE
    gathered = snapshot.memory.gathered
    assert isinstance(gathered, Gathered) and gathered.results == (2, 4, 6, 8)
    assert [o.run_id for o in gathered.outcomes] == [f"child.c0.{i}" for i in range(4)]
    assert sorted(notes.read_text().split()) == ["1", "2", "3", "4"]


def test_cancel_rest_cancels_the_children_after_a_failure_and_go_on_does_not() -> None:
    strict = run(STRICT.machine, Boss(items=(1, 13, 2)), SHELL).unwrap()
    assert strict.state is P.GAVE_UP and strict.memory.gathered is not None
    assert [type(o) for o in strict.memory.gathered.outcomes] == [ChildFinished, ChildFailed, ChildCancelled]
    lenient = run(FANNER.machine, Boss(items=(1, 13, 2)), SHELL).unwrap()
    assert lenient.memory.gathered is not None
    assert [type(o) for o in lenient.memory.gathered.outcomes] == [ChildFinished, ChildFailed, ChildFinished]


def test_an_unknown_program_is_a_failed_child_naming_it() -> None:
    snapshot = run(DELEGATOR.machine, Boss(n=1), Shell(in_process_children())).unwrap()
    assert snapshot.state is P.DONE  # imported by name: the child program is found without being passed
    from agentsm_fn.durable.running.in_process import run_in_process

    gone = run_in_process("tests.teams.programs:GONE", 1, "c", {})
    assert isinstance(gone, ChildFailed) and gone.reason.startswith(
        "unknown child program tests.teams.programs:GONE"
    )
