"""Building machines: every problem in one error; frozen tables; extension makes new machines."""

from __future__ import annotations

import enum

import pytest

from agentsm_fn import MachineDefinitionError, define_machine, emit, pure
from tests.core.sample import TABLE, E, Mem, S, idle, sample_machine


class Other(enum.Enum):
    STRANGER = 1


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(MachineDefinitionError) as raised:
        define_machine(
            states=S,
            events=E,
            initial=Other.STRANGER,
            terminals={S.DONE, Other.STRANGER},
            table={(S.IDLE, E.START): Other.STRANGER, (Other.STRANGER, E.MORE): S.DONE},
            handlers={S.DONE: pure(idle), Other.STRANGER: pure(idle)},
        )
    problems = raised.value.problems
    joined = "\n".join(problems)
    assert "initial state STRANGER is not a member of S" in joined
    assert "terminal state STRANGER is not a member of S" in joined
    assert "target STRANGER is not a member of S" in joined
    assert "source STRANGER is not a member of S" in joined
    assert "handler for STRANGER, which is not a member of S" in joined
    assert "handler for terminal state DONE would never run" in joined
    assert "non-terminal state IDLE has no handler" in joined
    assert "non-terminal state WORK has no handler" in joined
    assert len(problems) == 8
    assert str(len(problems)) in str(raised.value)


def test_row_with_an_event_of_another_enum_is_a_problem() -> None:
    with pytest.raises(MachineDefinitionError, match="event STRANGER is not a member of E"):
        define_machine(  # type: ignore[misc]  # the rows mix two event enums on purpose
            states=S,
            events=E,
            initial=S.IDLE,
            terminals={S.DONE, S.WORK},
            table={(S.IDLE, Other.STRANGER): S.DONE},
            handlers={S.IDLE: pure(idle)},
        )


def test_the_table_cannot_be_mutated() -> None:
    machine = sample_machine()
    with pytest.raises(TypeError):
        machine.table[(S.IDLE, E.MORE)] = S.DONE  # type: ignore[index]  # proving it is read-only
    with pytest.raises(TypeError):
        machine.handlers[S.DONE] = machine.handlers[S.IDLE]  # type: ignore[index]  # proving it is read-only


def test_the_table_is_a_copy_of_the_mapping_given() -> None:
    table = dict(TABLE)
    machine = sample_machine().extend(rows=table)
    table[(S.IDLE, E.START)] = S.DONE
    assert machine.table[(S.IDLE, E.START)] is S.WORK


def test_extend_returns_a_new_machine_and_leaves_the_old_one() -> None:
    machine = sample_machine()
    extended = machine.extend(rows={(S.IDLE, E.MORE): S.DONE}, handlers={S.IDLE: lambda m: emit(E.MORE, m)})
    assert (S.IDLE, E.MORE) not in machine.table
    assert extended.table[(S.IDLE, E.MORE)] is S.DONE
    assert machine.handlers[S.IDLE] is not extended.handlers[S.IDLE]


def test_extend_can_remove_rows_and_revalidates() -> None:
    machine = sample_machine()
    smaller = machine.extend(remove_rows=[(S.WORK, E.MORE)])
    assert (S.WORK, E.MORE) not in smaller.table
    with pytest.raises(MachineDefinitionError, match="non-terminal state DONE has no handler"):
        machine.extend(terminals={S.IDLE})


def test_handler_repr_names_the_functions() -> None:
    machine = sample_machine()
    assert repr(machine.handlers[S.IDLE]) == "Pure(idle)"
    assert "work_request" in repr(machine.handlers[S.WORK])


def test_memory_type_is_free() -> None:
    machine = sample_machine()
    assert machine.cap_for(Mem()) == 10_000
