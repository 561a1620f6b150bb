"""A machine opts into threads with one declared function: (thread so far, new message) -> start memory."""

from __future__ import annotations

import enum
from typing import Literal

import attrs
from returns.result import Result

from agentsm_fn import Fault, Machine, Shell, define_machine, emit, pure, run
from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE, PlanExecuteMemory
from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
from agentsm_fn.durable import Durable
from agentsm_fn.llm import (
    AssistantMessage,
    Conversant,
    Conversation,
    TurnStart,
    TurnTemplate,
    Usage,
    UserMessage,
    template_turns,
    turn_start,
)
from tests.durable.machines import ORDERS, Order


class S(enum.Enum):
    LISTENING = "listening"
    DONE = "done"


class E(enum.Enum):
    ANSWERED = "answered"


@attrs.frozen(kw_only=True)
class Chat:
    """A user machine's memory that takes part in threads: it says the thread after its turn."""

    thread: Conversation
    message: str
    reply: str = ""

    def thread_so_far(self) -> Conversation:
        turn = (UserMessage(self.message), AssistantMessage(self.reply))
        return self.thread.then(turn, Usage(output_tokens=1))


def answer(chat: Chat) -> Result[tuple[Literal[E.ANSWERED], Chat], Fault]:
    earlier = [m.content for m in chat.thread.messages if isinstance(m, UserMessage)]
    return emit(E.ANSWERED, attrs.evolve(chat, reply=f"{chat.message} (earlier: {', '.join(earlier)})"))


CHAT: Machine[S, E, Chat] = define_machine(
    name="chat",
    states=S,
    events=E,
    initial=S.LISTENING,
    terminals={S.DONE},
    table={(S.LISTENING, E.ANSWERED): S.DONE},
    handlers={S.LISTENING: pure(answer)},
)


def next_turn(thread: Conversation, message: str) -> Chat:
    """The user machine's one declared function: the thread so far and the new message to its start."""
    return Chat(thread=thread, message=message)


def order_turn(thread: Conversation, message: str) -> Order:
    return Order(items=len(thread.messages))


def test_a_user_machine_continues_its_thread_from_the_previous_turns_final_memory() -> None:
    turns = turn_start(next_turn)
    first = run(CHAT, turns.first("I am Ada."), Shell()).unwrap().memory
    second = run(CHAT, turns.after(first, "What is my name?"), Shell()).unwrap().memory
    assert second.reply == "What is my name? (earlier: I am Ada.)"
    thread = turns.thread(second)
    assert [m.content for m in thread.messages] == [
        "I am Ada.",
        "I am Ada. (earlier: )",
        "What is my name?",
        "What is my name? (earlier: I am Ada.)",
    ]
    assert (thread.turns, thread.usage, turns.thread(None)) == (2, Usage(output_tokens=2), Conversation())


def test_a_durable_declares_its_turn_start_and_mypy_checks_it() -> None:
    turns: TurnStart[Chat] = turn_start(next_turn)
    durable = Durable(name="tests.llm.test_turns:CHAT", machine=CHAT, turns=turns)
    assert durable.turns is turns
    # A memory that cannot say its thread, or a turn start of another machine's memory, is refused by mypy:
    turn_start(order_turn)  # type: ignore[type-var]  # Order has no thread_so_far
    Durable(name="x:ORDERS", machine=ORDERS, turns=turns)  # type: ignore[misc]  # Chat is not Order
    assert isinstance(Chat(thread=Conversation(), message=""), Conversant)
    assert not isinstance(Order(items=1), Conversant)


def test_the_built_in_agents_templates_start_their_turns() -> None:
    template = AgentMemory.new("").with_system_prompt("Hi")
    react = Durable(name="app:AGENT", machine=REACT_MACHINE, template=template)
    assert react.turns is not None
    start = react.turns.first("I am Ada.")
    assert (start.task, start.system_prompt, start.conversation) == ("I am Ada.", "Hi", Conversation())
    planner = Durable(name="app:PLANNER", machine=PLAN_EXECUTE_MACHINE, template=PlanExecuteMemory(input=""))
    assert planner.turns is not None
    assert planner.turns.first("Compare PDF libraries").input == "Compare PDF libraries"
    assert isinstance(AgentMemory.new(""), TurnTemplate)
    assert isinstance(PlanExecuteMemory(input=""), TurnTemplate)


def test_a_program_without_a_turn_start_takes_no_part_in_threads() -> None:
    assert Durable(name="app:AGENT", machine=REACT_MACHINE).turns is None
    assert Durable(name="x:ORDERS", machine=ORDERS, template=Order(items=1)).turns is None
    assert template_turns(None) is None
