"""Exploring a parent with children: each child explored first, the parent fed every way it can end."""

from __future__ import annotations

import enum
from typing import cast

from agentsm_fn.teams import ChildFailed, ChildFinished, Children, ChildRun, Gathered, GatherPolicy
from tests.verification import team_machines as t
from verification.explore import explore
from verification.explore._children import AnyMachine, ChildOutcomes, ExploreChild
from verification.kit import Outcomes


def approved(
    machine: AnyMachine, memory: object, outcomes: Outcomes, stack: tuple[int, ...], max_states: int | None
) -> tuple[object, tuple[tuple[enum.Enum, object], ...]]:
    """A child exploration that reached APPROVED with the start memory, and nothing else."""
    return None, ((t.C.APPROVED, memory),)


def test_a_parent_is_fed_each_terminal_its_child_reaches_then_failed_and_cancelled() -> None:
    found = explore(t.PARENT, [1, 0])
    assert found.ok and found.exhausted
    # per start: ASKING, then DONE or REJECTED (the child's one terminal from it), and ERROR
    assert found.states == 6
    assert [c.machine for c in found.children] == ["child", "child"]
    assert all(c.exhausted for c in found.children)
    assert "children: 2 explored first (child)" in found.summary()


def test_an_unmapped_terminal_the_child_reaches_is_a_counterexample() -> None:
    found = explore(t.PARENT_UNMAPPED, [1, 0])
    assert found.counterexample is not None
    assert "finished in REFUSED, which maps to no event" in found.counterexample.message
    assert found.counterexample.case.memory == 0


def test_the_child_outcomes_are_its_reached_terminals_with_their_memories() -> None:
    fed = ChildOutcomes(cast(AnyMachine, t.PARENT), Outcomes(), approved, (), None)
    kinds = fed.registry().examples_for(ChildRun(program=t.PROGRAM, memory=5, run_id="c1"))
    assert [type(k).__name__ for k in kinds] == ["ChildFinished", "ChildFailed", "ChildCancelled"]
    assert kinds[0] == ChildFinished(run_id="c1", program=t.PROGRAM, state="APPROVED", result="verdict on 5")


def test_a_grandchild_is_explored_before_its_parent_before_the_grandparent() -> None:
    found = explore(t.GRANDPARENT, [1])
    assert found.ok and found.exhausted
    (parent,) = found.children
    assert parent.machine == "parent" and [c.machine for c in parent.children] == ["child"]


def test_a_fan_out_is_fed_every_finished_combination_and_each_child_failed_and_cancelled() -> None:
    fed = ChildOutcomes(cast(AnyMachine, t.FANNING), Outcomes(), approved, (), None)
    outcomes = fed.many(Children(program=t.PROGRAM, memories=(1, 2), policy=GatherPolicy.CANCEL_REST))
    assert all(isinstance(g, Gathered) for g in outcomes)
    kinds = [tuple(type(o).__name__ for o in g.outcomes) for g in outcomes if isinstance(g, Gathered)]
    assert kinds == [
        ("ChildFinished", "ChildFinished"),
        ("ChildFailed", "ChildCancelled"),
        ("ChildFinished", "ChildFailed"),
        ("ChildCancelled", "ChildFinished"),
        ("ChildFinished", "ChildCancelled"),
    ]
    first = outcomes[0]
    assert isinstance(first, Gathered) and isinstance(first.outcomes[1], ChildFinished)
    assert first.outcomes[1].result == "verdict on 2"


def test_exploring_a_fan_out_reaches_both_gathered_routes() -> None:
    found = explore(t.FANNING, [0, 2])
    assert found.ok and found.exhausted
    # items(0) is no child: all finished (DONE); items(2) refuses one: some failed (REJECTED) or all not
    assert found.states == 5


def test_a_program_that_delegates_to_itself_is_explored_once_and_not_exhausted() -> None:
    found = explore(t.RECURSIVE, [1])
    assert not found.exhausted
    assert found.ok


def test_a_user_registry_for_child_runs_wins() -> None:
    failed = ChildFailed(run_id="r", program=t.PROGRAM, reason="mine")
    mine = Outcomes().on(ChildRun, lambda e: None, examples=lambda e: (failed,))  # type: ignore[arg-type,return-value]
    found = explore(t.PARENT, [1], mine)
    assert found.children == () and found.states == 2


def test_a_finished_child_gives_its_program_result_and_a_terminal_its_program_calls_failed_is_not_fed() -> (
    None
):
    fed = ChildOutcomes(cast(AnyMachine, t.PARENT), Outcomes(), _explore_child_of_parent(), (), None)
    kinds = fed.one(ChildRun(program=t.PROGRAM, memory=3, run_id="c"))
    assert kinds[0] == ChildFinished(run_id="c", program=t.PROGRAM, state="APPROVED", result="verdict on 3")
    assert [type(k).__name__ for k in fed.one(ChildRun(program=t.PROGRAM, memory=-1))] == [
        "ChildFinished",
        "ChildFailed",
        "ChildCancelled",
    ]
    assert [type(k).__name__ for k in fed.one(ChildRun(program=t.PROGRAM, memory=-2))] == [
        "ChildFailed",
        "ChildCancelled",
    ]


def _explore_child_of_parent() -> ExploreChild:
    from verification.explore.exploration import _explore_child

    return _explore_child
