"""Behaviour of verify(): annotations, locations, witnesses, ignores, soundness, policies."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import cast

import pytest

from agentsm_fn import Handler, Machine
from tests.verification import machines as mx
from tests.verification.corpus import build, clean
from verification import (
    Ignore,
    NeverReachable,
    PassesThrough,
    PolicyError,
    emittable_events,
    step_bound,
    verify,
)


def test_events_are_read_from_request_and_receive_annotations() -> None:
    assert emittable_events(mx.WORKER, mx.Phase.WORK) == frozenset(
        {mx.Signal.MORE, mx.Signal.FINISHED, mx.Signal.BROKE}
    )
    assert emittable_events(mx.WORKER, mx.Phase.IDLE) == frozenset({mx.Signal.START})
    assert emittable_events(mx.WORKER, mx.Phase.DONE) == frozenset()


def test_a_lambda_has_unknown_events_instead_of_crashing() -> None:
    assert emittable_events(mx.WORKER_LAMBDA, mx.Phase.IDLE) is None
    (violation,) = verify(mx.WORKER_LAMBDA).violations
    assert violation.code == "SM013" and "lambda" in violation.message


def test_a_bare_event_enum_in_the_annotation_means_every_event() -> None:
    (violation,) = verify(mx.WORKER_ANY).violations
    assert violation.code == "SM008"
    assert violation.events == ("MORE", "FINISHED", "BROKE", "IGNORED")


def test_foreign_literal_events_are_reported() -> None:
    (violation,) = verify(mx.WORKER_STRAY).violations
    assert (violation.code, violation.events) == ("SM013", ("Stray.ELSEWHERE",))


def test_dead_row_points_at_the_line_that_writes_it() -> None:
    (violation,) = verify(mx.WORKER_DEAD_ROW).violations
    assert violation.code == "SM007"
    assert violation.location is not None
    assert violation.location.path.endswith("tests/verification/machines.py")
    lines = Path(violation.location.path).read_text(encoding="utf-8").splitlines()
    assert "(Phase.IDLE, Signal.IGNORED)" in lines[violation.location.line - 1]


def test_handler_findings_point_at_the_handler() -> None:
    (violation,) = verify(mx.WORKER_ANY).violations
    assert violation.location is not None
    lines = Path(violation.location.path).read_text(encoding="utf-8").splitlines()
    assert lines[violation.location.line - 1].startswith("def idle_any(")


def test_all_violations_are_reported_in_one_run() -> None:
    machine = build(
        name="many",
        extra_states=("LOST",),
        extra_rows=(("LOST", "FINISHED", "DONE"), ("IDLE", "FINISHED", "DONE"), ("DONE", "START", "IDLE")),
        emits={"LOST": {"FINISHED"}},
        budgeted=(),
    )
    codes = [v.code for v in verify(machine).violations]
    assert codes == ["SM002", "SM003", "SM007", "SM009"]


def test_violations_are_in_a_deterministic_order() -> None:
    machine = build(name="order", budgeted=(), extra_rows=(("DONE", "START", "IDLE"),))
    assert verify(machine).violations == verify(machine).violations


def test_dead_end_is_named_as_such_with_the_states_that_lead_there() -> None:
    machine = build(
        name="deadend",
        extra_states=("TRAP", "STUCK"),
        extra_rows=(("ACT", "DETOUR", "TRAP"), ("TRAP", "NEXT", "STUCK")),
        emits={"ACT": {"ACTED", "FINISHED", "ERRORED", "DETOUR"}, "TRAP": {"NEXT"}, "STUCK": set()},
    )
    by_code = {v.code: v for v in verify(machine).violations}
    assert set(by_code) == {"SM004", "SM005"}
    assert "dead end" in by_code["SM005"].message
    assert by_code["SM005"].states == ("TRAP", "STUCK")
    witness = by_code["SM005"].witness
    assert witness is not None and witness.render() == (
        "IDLE --START--> PLAN --PLANNED--> ACT --DETOUR--> TRAP --NEXT--> STUCK"
    )


def test_termination_failure_shows_a_lasso_from_the_initial_state() -> None:
    (violation,) = verify(build(name="loop", budgeted=())).violations
    assert violation.witness is not None
    assert [str(e) for e in violation.witness.stem] == ["IDLE --START--> PLAN"]
    assert [str(e) for e in violation.witness.loop] == ["PLAN --PLANNED--> ACT", "ACT --ACTED--> PLAN"]


def test_step_bound_counts_transitions_per_budget_unit() -> None:
    bound = step_bound(clean())
    assert bound is not None
    assert (bound.per_budget_unit, bound.before_first_unit) == (2, 1)
    assert bound.max_transitions(10) == 21
    assert step_bound(build(name="loop", budgeted=())) is None


def test_ignored_violations_do_not_fail_the_report_but_stay_visible() -> None:
    report = verify(build(name="loop", budgeted=()), ignores=(Ignore("SM009", "bounded by the caller"),))
    assert report.ok
    (violation,) = report.violations
    assert violation.ignored == "bounded by the caller"
    verdict = next(v for v in report.verdicts if v.code == "SM009")
    assert (verdict.status, verdict.reason) == ("ignored", "bounded by the caller")
    assert not report.strongly_sound


def test_soundness_verdicts() -> None:
    assert verify(build(name="t", extra_rows=(("DONE", "START", "IDLE"),))).soundness_failures == (
        "proper completion",
    )
    report = verify(build(name="loop", budgeted=()))
    assert report.sound and not report.strongly_sound


def test_never_reachable_holds_for_an_unreachable_state() -> None:
    machine = build(
        name="nr",
        extra_states=("LOST",),
        extra_rows=(("LOST", "FINISHED", "DONE"),),
        emits={"LOST": {"FINISHED"}},
    )
    report = verify(machine, policies=(NeverReachable("LOST"),), ignores=(Ignore("SM002", "kept for later"),))
    assert report.ok
    assert next(v for v in report.verdicts if v.code == "SM012").status == "proved"


def test_policy_naming_an_unknown_state_is_a_usage_error() -> None:
    with pytest.raises(PolicyError, match="NOPE"):
        verify(clean(), policies=(PassesThrough("IDLE", "NOPE", "PLAN"),))


def test_policy_witness_is_the_shortest_bypass() -> None:
    machine = build(
        name="p", extra_rows=(("IDLE", "SHORTCUT", "ACT"),), emits={"IDLE": {"START", "SHORTCUT"}}
    )
    (violation,) = verify(machine, policies=(PassesThrough("IDLE", "ACT", "PLAN"),)).violations
    assert violation.witness is not None and violation.witness.render() == "IDLE --SHORTCUT--> ACT"


def test_graph_model_is_a_networkx_multidigraph_labelled_by_event() -> None:
    from verification import graph_of

    model = graph_of(mx.WORKER)
    graph = model.graph
    assert sorted(graph.edges(keys=True)) == [
        ("IDLE", "WORK", "START"),
        ("WORK", "DONE", "FINISHED"),
        ("WORK", "FAILED", "BROKE"),
        ("WORK", "WORK", "MORE"),
    ]
    assert graph.nodes["WORK"]["budgeted"] and graph.nodes["DONE"]["terminal"]
    assert graph.edges["WORK", "WORK", "MORE"]["event"] == "MORE"
    assert model.by_name["WORK"].effectful and model.by_name["WORK"].failure_event == "BROKE"


def test_livelock_is_named_with_its_members_and_a_lasso() -> None:
    from tests.verification.corpus import defects

    machine, _ = defects()["SM005 livelock"]
    (violation,) = verify(machine).violations
    assert violation.message.startswith("livelock region {LOOP_A, LOOP_B}")
    assert violation.witness is not None
    assert [str(e) for e in violation.witness.loop] == ["LOOP_A --NEXT--> LOOP_B", "LOOP_B --NEXT--> LOOP_A"]
    assert violation.witness.stem[-1].target == "LOOP_A"


def test_text_report_has_a_summary_line_and_one_verdict_per_property() -> None:
    from verification import PROPERTIES, render_text

    text = render_text([verify(build(name="loop", budgeted=()))])
    lines = text.splitlines()
    assert lines[0] == "loop: 5 states, 6 rows: 1 of 12 properties VIOLATED (1 violation), 11 proved"
    for prop in PROPERTIES:
        assert sum(f" {prop.code} {prop.name}" in line for line in lines[1 : 1 + len(PROPERTIES)]) == 1
    assert "  VIOLATED  SM009 termination (1)" in lines
    assert "      witness: IDLE --START--> PLAN, then loop: PLAN --PLANNED--> ACT --ACTED--> PLAN" in lines
    assert lines[-1] == "agentsm-verify: 1 of 1 machine(s) FAILED, 1 violation(s)"


def test_builtin_machines_are_sound_and_bounded() -> None:
    from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
    from agentsm_fn.agents.react import REACT_MACHINE

    for report in (verify(REACT_MACHINE), verify(PLAN_EXECUTE_MACHINE)):
        assert report.violations == () and report.strongly_sound
        assert report.bound is not None and report.bound.per_budget_unit > 0


def test_a_handler_that_is_not_a_handler_is_a_finding() -> None:
    machine = clean()
    broken = Machine(
        states=machine.states,
        events=machine.events,
        initial=machine.initial,
        terminals=machine.terminals,
        table=machine.table,
        handlers={**machine.handlers, machine.initial: cast(Handler[enum.Enum, int], "not a handler")},
        budgeted=machine.budgeted,
    )
    (violation,) = verify(broken).violations
    assert violation.code == "SM013" and "not a Handler" in violation.message


def test_a_machine_without_enum_classes_is_a_programmer_error() -> None:
    machine = clean()
    odd: Machine[enum.Enum, enum.Enum, int] = Machine(
        states=cast(type[enum.Enum], int),
        events=machine.events,
        initial=machine.initial,
        terminals=frozenset(),
        table={},
        handlers={},
    )
    with pytest.raises(TypeError, match="states must be an enum class"):
        verify(odd)
