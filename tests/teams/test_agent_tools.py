"""Agents as tools: a ReAct agent's call of another durable agent is a child run, its answer the observation.

The models answer from the request alone (as a real one does: a resumed run asks again only what its
journal does not hold): the desk asks the refunds agent, then answers with what it observed.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.agents.react import AgentMemory, agent_failure
from agentsm_fn.agents.react.agent_tools import handed_thread
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.durable import Durable, RunStatus, RunStore, child_run_id, stored_children
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.llm import (
    AssistantMessage,
    Conversation,
    LlmReply,
    LlmRequest,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.tools import tool


@tool
def order_status(order: str) -> str:
    """Where an order is.

    Args:
        order: The order number.
    """
    return f"{order} ships tomorrow"


class Refunds:
    """The refunds agent's model: it refunds the order it is asked about."""

    def complete(self, request: LlmRequest) -> LlmReply:
        asked = [m.content for m in request.messages if isinstance(m, UserMessage)][-1]
        return LlmReply(content=f"Order {asked.split()[-1]} is refunded in full.")


class Desk:
    """The desk's model: it calls its tools (all at once) first, then answers with their results."""

    def __init__(self, *calls: ToolCall) -> None:
        self.calls = calls

    def complete(self, request: LlmRequest) -> LlmReply:
        seen = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        return LlmReply(content=" | ".join(seen)) if seen else LlmReply(tool_calls=self.calls)


def _agent(name: str, builder: AgentBuilder[str]) -> Durable[Any, Any, Any]:
    built = builder.build().unwrap()
    return Durable(
        name=name, machine=built.machine, shell=built.shell, template=built.memory, failure=agent_failure
    )


REFUNDS = _agent("tests.teams.test_agent_tools:REFUNDS", AgentBuilder.new("").llm(Refunds()))
ASK = ToolCall("c1", "ask_refunds", {"input": "Refund A-17"})
DESK = _agent(
    "tests.teams.test_agent_tools:DESK",
    AgentBuilder.new("Please refund A-17").llm(Desk(ASK)).agent_tool("ask_refunds", "Refunds", REFUNDS),
)
MANY = _agent(
    "tests.teams.test_agent_tools:MANY",
    AgentBuilder.new("Refund A-17, and where is B-42?")
    .llm(
        Desk(
            ASK,
            ToolCall("c2", "ask_nobody", {"input": "hi"}),
            ToolCall("c3", "order_status", {"order": "B-42"}),
        )
    )
    .agent_tool("ask_refunds", "Refunds", REFUNDS)
    .agent_tool("ask_nobody", "Nobody", "tests.teams.test_agent_tools:NOBODY")
    .tools(order_status),
)


def test_an_agent_tool_runs_the_agent_as_a_child_run_whose_answer_is_the_observation(store: RunStore) -> None:
    done = DESK.start(store, DESK.template, run_id="desk").unwrap()
    assert done.snapshot.state is State.Done
    assert done.snapshot.memory.final_answer == "SUCCESS: Order A-17 is refunded in full."
    (child,) = stored_children(store, "desk").unwrap()
    assert (child.run_id, child.program, child.status) == (
        child_run_id("desk", child.seq),
        REFUNDS.name,
        RunStatus.FINISHED,
    )
    started = from_bytes(child.memory, AgentMemory).unwrap()  # a new turn of the refunds agent
    assert (started.task, started.tools) == ("Refund A-17", ())  # the refunds agent's memory: no tools


def test_a_batch_runs_its_agent_calls_as_children_and_a_failed_one_is_an_error_observation(
    store: RunStore,
) -> None:
    done = MANY.start(store, MANY.template, run_id="many").unwrap()
    assert done.snapshot.state is State.Done
    said = done.snapshot.memory.final_answer.split(" | ")
    assert said[0] == "SUCCESS: Order A-17 is refunded in full."
    assert said[1].startswith("ERROR: ChildFailed: tests.teams.test_agent_tools:NOBODY")
    assert said[2] == "SUCCESS: B-42 ships tomorrow"
    assert [c.status for c in stored_children(store, "many").unwrap()] == [RunStatus.FINISHED]


TRIAGE = _agent(
    "tests.teams.test_agent_tools:TRIAGE",
    AgentBuilder.new("Please refund A-17")
    .llm(Desk(ToolCall("t1", "transfer_to_refunds", {})))
    .handoff(REFUNDS, description="Refunds", input_filter=lambda messages: messages[-1:]),
)


def test_a_handoff_runs_the_receiving_agent_on_the_filtered_conversation_and_its_answer_is_the_run_s(
    store: RunStore,
) -> None:
    earlier = Conversation().then(
        [UserMessage("My card is 4111 1111"), AssistantMessage("Noted, thank you.")]
    )
    assert isinstance(TRIAGE.template, AgentMemory)
    start = TRIAGE.template.start_turn(earlier, "Please refund A-17")
    done = TRIAGE.start(store, start, run_id="triage").unwrap()
    assert (
        done.snapshot.state is State.Done
        and [e.event for e in done.snapshot.trace][-1] == Event.HandedOff.name
    )
    assert done.snapshot.memory.final_answer == "Order A-17 is refunded in full."
    (child,) = stored_children(store, "triage").unwrap()
    started = from_bytes(child.memory, AgentMemory).unwrap()
    assert started.task == "Please refund A-17"
    assert [m.content for m in started.conversation.messages] == ["Noted, thank you."]  # the filter's last


@given(earlier=st.lists(st.sampled_from(["I am Ada.", "card 4111", "Hello, Ada!", "refund"]), max_size=6))
def test_an_input_filter_never_shows_what_it_drops(earlier: list[str]) -> None:
    thread = Conversation().then([UserMessage(text) for text in earlier])
    memory = AgentMemory.new("Refund A-17").evolve(conversation=attrs.evolve(thread, summary="card 4111"))
    kept = handed_thread(memory, lambda messages: tuple(m for m in messages if "4111" not in m.content))
    assert all("4111" not in m.content for m in kept.messages) and "4111" not in kept.summary
    assert [m.content for m in kept.messages] == [t for t in earlier if "4111" not in t]
    assert handed_thread(memory).messages == thread.messages  # keep_everything: all of it
