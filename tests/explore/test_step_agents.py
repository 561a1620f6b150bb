"""Exploring a plan-and-execute agent's step agents: a child run started as a turn is explored from it."""

from __future__ import annotations

import enum
from typing import cast

import attrs

from agentsm_fn import define_machine, emit, pure
from agentsm_fn.agents.plan_execute import StepAgent, plan_execute_machine, step_child
from agentsm_fn.durable import Durable
from agentsm_fn.llm import Conversation
from agentsm_fn.teams import ChildFinished, ChildRun, StartTurn
from tests.verification import team_machines as t
from verification.explore._children import AnyMachine, ChildOutcomes
from verification.kit import Outcomes


@attrs.frozen
class Ask:
    """A step agent's memory: the step it was given."""

    message: str = ""
    thread: Conversation = attrs.field(factory=Conversation)

    def thread_so_far(self) -> Conversation:
        return self.thread

    def start_turn(self, thread: Conversation, message: str) -> Ask:
        return Ask(message, thread)


class Q(enum.Enum):
    ANSWER = 1
    DONE = 2


class QE(enum.Enum):
    ANSWERED = 1


ASKER = Durable(
    name="tests.explore.test_step_agents:ASKER",
    machine=define_machine(
        name="asker",
        states=Q,
        events=QE,
        initial=Q.ANSWER,
        terminals={Q.DONE},
        table={(Q.ANSWER, QE.ANSWERED): Q.DONE},
        handlers={Q.ANSWER: pure(lambda ask: emit(QE.ANSWERED, ask), events={QE.ANSWERED})},
    ),
    template=Ask(),
)


def reached(
    machine: AnyMachine, memory: object, outcomes: Outcomes, stack: tuple[int, ...], max_states: int | None
) -> tuple[object, tuple[tuple[enum.Enum, object], ...]]:
    """A child exploration that reached DONE with the memory it started from."""
    return None, ((Q.DONE, memory),)


def test_a_step_agent_s_turn_is_explored_from_the_memory_its_template_makes() -> None:
    agent = StepAgent(name="asker", description="Answers", program=ASKER.name)
    parent = plan_execute_machine(steps=[step_child(agent, ASKER.machine)])
    fed = ChildOutcomes(cast(AnyMachine, parent), Outcomes(), reached, (), None)
    kinds = fed.registry().examples_for(ChildRun(program=ASKER.name, memory=StartTurn(message="Refund A-17")))
    assert [type(k).__name__ for k in kinds] == ["ChildFinished", "ChildFailed", "ChildCancelled"]
    finished = kinds[0]
    assert isinstance(finished, ChildFinished) and finished.result == Ask("Refund A-17")


def test_a_step_agent_that_starts_no_turns_can_only_fail() -> None:
    agent = StepAgent(name="plain", description="Starts no turns", program=t.PROGRAM)
    parent = plan_execute_machine(steps=[step_child(agent, t.CHILD)])
    fed = ChildOutcomes(cast(AnyMachine, parent), Outcomes(), reached, (), None)
    kinds = fed.registry().examples_for(ChildRun(program=t.PROGRAM, memory=StartTurn(message="x")))
    assert [type(k).__name__ for k in kinds] == ["ChildFailed", "ChildCancelled"]
