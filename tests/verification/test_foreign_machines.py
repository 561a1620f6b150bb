"""python-statemachine and transitions machines, built with the real libraries, verified like our own."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.verification import foreign_machines as machines
from verification import Location, MachineGraph, Report, verify_graph
from verification.cli import main
from verification.foreign import read_foreign

FILE = "tests/verification/foreign_machines.py"


def line_of(text: str) -> int:
    lines = Path(machines.__file__).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def model_of(machine: object) -> MachineGraph:
    model = read_foreign(machine, [machines.__file__])
    assert isinstance(model, MachineGraph), model
    return model


def report_of(machine: object) -> Report:
    return verify_graph(model_of(machine))


def codes(report: Report) -> list[str]:
    return [v.code for v in report.counted]


def test_a_sound_statemachine_class_and_its_instance_pass() -> None:
    for target in (machines.Order, machines.Order()):
        report = report_of(target)
        assert report.ok and report.sound, [v.message for v in report.violations]
        assert report.model.framework == "python-statemachine"


def test_a_statemachine_reads_states_transitions_and_their_lines() -> None:
    model = model_of(machines.Order)
    assert model.initial == "placed" and model.terminals == ("shipped", "cancelled")
    assert [(r.source, r.event, r.target) for r in model.rows] == [
        ("placed", "cancel", "cancelled"),
        ("placed", "pay", "paid"),
        ("paid", "cancel", "cancelled"),
        ("paid", "ship", "shipped"),
    ]
    assert model.by_name["paid"].location == Location(FILE, line_of("    paid = State()"))
    assert model.rows[1].location == Location(FILE, line_of("    pay = placed.to(paid)"))


def test_a_statemachine_state_nothing_leads_to_is_unreachable() -> None:
    (found,) = report_of(machines.OrderWithLostState).counted
    assert (found.code, found.states) == ("SM002", ("refunded",))
    assert found.location == Location(FILE, line_of("    refunded = State(final=True)"))


def test_a_statemachine_state_with_no_way_out_is_a_dead_end() -> None:
    (found,) = report_of(machines.OrderStuckInReview).counted
    assert (found.code, found.states) == ("SM004", ("review",))
    assert found.location == Location(FILE, line_of("    review = State()"))
    assert found.hint == "add a transition out of the state, or declare it State(final=True)"


def test_a_statemachine_loop_with_no_way_to_a_final_state_is_a_livelock() -> None:
    (found,) = report_of(machines.OrderRetryingForever).counted
    assert found.code == "SM005" and found.witness is not None
    assert (
        found.witness.render()
        == "placed --fail--> failing, then loop: failing --retry--> retrying --fail--> failing"
    )


def test_a_statemachine_without_final_states_cycles_forever() -> None:
    (found,) = report_of(machines.TrafficLight).counted
    assert found.code == "SM005" and found.states == ("green", "yellow", "red")


def test_a_sound_transitions_machine_passes_without_its_automatic_triggers() -> None:
    report = report_of(machines.MATTER)
    assert report.ok, [v.message for v in report.violations]
    assert not any(r.event.startswith("to_") for r in report.model.rows)
    assert report.model.terminals == ("plasma",)


def test_a_transitions_state_nothing_leads_to_is_unreachable() -> None:
    (found,) = report_of(machines.MATTER_WITH_LOST_STATE).counted
    assert (found.code, found.states) == ("SM002", ("crystal",))
    assert found.location == Location(FILE, line_of('states=[*STATES, "crystal"]'))


def test_a_transitions_state_with_no_way_out_is_a_dead_end() -> None:
    report = report_of(machines.MATTER_STUCK)
    assert codes(report) == ["SM004", "SM005"]
    assert report.counted[0].states == ("gas",)


def test_a_transitions_loop_with_no_exit_is_a_livelock_located_at_its_trigger() -> None:
    (found,) = report_of(machines.MATTER_LOOPING).counted
    assert found.code == "SM005" and found.states == ("liquid", "gas")
    rows = model_of(machines.MATTER_LOOPING).rows
    boil = next(r for r in rows if r.event == "boil")
    assert boil.location == Location(FILE, line_of('["boil", "liquid", "gas"]'))


def test_a_transitions_machine_without_final_states_ends_in_its_sinks() -> None:
    from transitions import Machine

    machine = Machine(states=["draft", "sent"], initial="draft", transitions=[["send", "draft", "sent"]])
    report = report_of(machine)
    assert report.ok and report.model.terminals == ("sent",)


def test_the_command_line_verifies_both_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["tests.verification.foreign_machines:Order", "tests.verification.foreign_machines:MATTER"]) == 0
    )
    assert main(["tests.verification.foreign_machines:OrderStuckInReview", "--format", "json"]) == 1
    assert '"framework": "python-statemachine"' in capsys.readouterr().out
    assert main(["tests.verification.foreign_machines:State"]) == 2
    assert "a python-statemachine State is not a StateMachine or StateChart class" in capsys.readouterr().err


def test_nested_states_are_refused_with_a_message() -> None:
    from statemachine import State, StateMachine
    from transitions.extensions.nesting import HierarchicalMachine

    class Shop(StateMachine):
        class open(State.Compound):  # python-statemachine names states by attribute
            idle = State(initial=True)
            busy = State()
            serve = idle.to(busy)

        closed = State(final=True)
        close = open.to(closed)

    assert read_foreign(Shop) == "the StateMachine Shop has compound or parallel states, which are not read"
    nested = HierarchicalMachine(states=["a", {"name": "b", "children": ["x", "y"]}], initial="a")
    assert read_foreign(nested) == "the HierarchicalMachine has nested states, which are not read"


@st.composite
def random_machines(draw: st.DrawFn) -> tuple[list[str], list[list[str]], set[str]]:
    """States s0..sN, random transitions between them, a random set of final states."""
    names = [f"s{n}" for n in range(draw(st.integers(2, 6)))]
    pairs = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)), max_size=12))
    finals = draw(st.sets(st.sampled_from(names), max_size=2))
    return names, [[f"t{n}", a, b] for n, (a, b) in enumerate(pairs)], finals


def _reach(start: str, edges: list[tuple[str, str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        for a, b in edges:
            if a == node and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


@given(random_machines())
@settings(max_examples=60, deadline=None)
def test_random_transitions_machines_agree_with_a_brute_force_reading(
    drawn: tuple[list[str], list[list[str]], set[str]],
) -> None:
    from transitions import Machine

    names, transitions, finals = drawn
    states = [{"name": n, "final": n in finals} for n in names]
    report = report_of(Machine(states=states, initial="s0", transitions=transitions, auto_transitions=False))
    edges = [(a, b) for _, a, b in transitions]
    ends = finals or {n for n in names if not any(a == n for a, _ in edges)}
    flow = [(a, b) for a, b in edges if a not in ends]  # a run ends on reaching a final state
    reachable = _reach("s0", flow)
    found = {v.code: v for v in report.violations}
    unreachable = tuple(n for n in names if n not in reachable)
    assert (found["SM002"].states if "SM002" in found else ()) == unreachable
    assert [v.states[0] for v in report.violations if v.code == "SM003"] == [
        n for n in names if n in finals and any(a == n for a, _ in edges)
    ]
    stuck = [n for n in names if n in reachable and n not in ends and not any(a == n for a, _ in edges)]
    assert [v.states[0] for v in report.violations if v.code == "SM004"] == stuck
    can_finish = all(_reach(n, flow) & ends for n in reachable)
    assert ("SM005" in found or "SM004" in found) == (not can_finish)


def test_a_transitions_final_state_that_can_be_left_is_named_in_transitions_words() -> None:
    from transitions import Machine

    machine = Machine(
        states=["draft", {"name": "sent", "final": True}],
        initial="draft",
        transitions=[["send", "draft", "sent"], ["reset", "*", "draft"]],
    )
    (found,) = report_of(machine).counted
    assert (found.code, found.states, found.events) == ("SM003", ("sent",), ("reset",))
    assert "so the machine can leave a state it calls final" in found.message
    assert "a wildcard source '*' includes it" in found.hint


def test_a_statemachine_class_without_states_is_refused_with_a_message() -> None:
    from statemachine import StateMachine

    assert read_foreign(StateMachine) == "the StateMachine StateMachine has no states"


def test_a_flat_statechart_is_read_like_a_statemachine() -> None:
    from statemachine import State, StateChart

    class Review(StateChart[object]):
        drafted = State(initial=True)
        approved = State(final=True)
        approve = drafted.to(approved)

    report = report_of(Review)
    assert report.ok and report.model.rows[0].event == "approve"
