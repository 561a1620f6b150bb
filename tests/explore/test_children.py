"""Exploring a parent with children: each child explored first, the parent fed every way it can end."""

from __future__ import annotations

from typing import cast

from agentsm_fn.teams import ChildFailed, ChildFinished, Children, ChildRun, Gathered, GatherPolicy
from tests.verification import team_machines as t
from verification.explore import explore
from verification.explore._children import AnyMachine, ChildOutcomes
from verification.kit import Outcomes


def approved(
    machine: AnyMachine, memory: object, outcomes: Outcomes, stack: tuple[int, ...], max_states: int | None
) -> tuple[object, tuple[tuple[str, object], ...]]:
    """A child exploration that reached APPROVED with the start memory, and nothing else."""
    return None, (("APPROVED", memory),)


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
    assert kinds[0] == ChildFinished(run_id="c1", program=t.PROGRAM, state="APPROVED", result=5)


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
    assert first.outcomes[1].result == 2


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
