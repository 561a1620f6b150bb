"""A ReAct thread through each provider against aimock: turn 2's request holds turn 1, as real messages.

Turn 2 starts from turn 1's final memory with the agent's turn start (``turn_start``), through the
ordinary Python API; aimock's recorded requests show what each provider was sent.
"""

from __future__ import annotations

import json

import attrs
import pytest

from agentsm_fn.agents.react.result import ReactCompleted
from agentsm_fn.llm import Usage, turn_start
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import PROVIDERS, make, validate_journal

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

TURN_ONE_THEN_TWO = [
    ("user", "My name is Ada."),
    ("assistant", "call remember {'name': 'Ada'}"),
    ("tool", "SUCCESS: noted Ada"),
    ("assistant", "Nice to meet you, Ada!"),
    ("user", "What is my name?"),
]


def remember(name: str) -> str:
    return f"noted {name}"


def _wire_turns(path: str, body: dict[str, object]) -> list[tuple[str, str]]:
    """The conversation a request body holds, as (role, what) pairs, whatever the provider's format."""
    messages = body["messages"]
    assert isinstance(messages, list)
    turns: list[tuple[str, str]] = []
    for message in messages:
        role, content = message["role"], message.get("content")
        for call in message.get("tool_calls") or ():
            function = call.get("function", call)
            arguments = function["arguments"]
            arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
            turns.append(("assistant", f"call {function['name']} {arguments}"))
        if isinstance(content, list):  # Anthropic's content blocks
            for block in content:
                if block["type"] == "text":
                    turns.append((role, block["text"]))
                elif block["type"] == "tool_use":
                    turns.append(("assistant", f"call {block['name']} {block['input']}"))
                elif block["type"] == "tool_result":
                    text = (
                        block["content"] if isinstance(block["content"], str) else block["content"][0]["text"]
                    )
                    turns.append(("tool", text))
        elif content:
            turns.append((role, content))
    return [t for t in turns if t[0] != "system"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", PROVIDERS)
def test_turn_two_sends_turn_one_in_order_before_the_new_message(
    kind: str, stream: bool, aimock: Aimock
) -> None:
    provider = make(kind, aimock, Sleeps(), stream=stream)
    agent = AgentBuilder.new("").llm(provider).tool("remember", "Note the user's name", SCHEMA, remember)
    built = agent.system_prompt("You remember what the user says.").build().unwrap()
    turns = turn_start(built.memory.start_turn)
    first = attrs.evolve(built, memory=turns.first("My name is Ada.")).run().unwrap()
    assert isinstance(first, ReactCompleted)
    second = attrs.evolve(built, memory=turns.after(first.memory, "What is my name?")).run().unwrap()
    assert isinstance(second, ReactCompleted) and second.answer == "Your name is Ada, as you told me."
    sent = validate_journal(aimock)
    assert len(sent) == 3
    assert _wire_turns(*sent[2]) == TURN_ONE_THEN_TWO
    thread = second.memory.thread_so_far()
    assert thread.turns == 2
    assert thread.usage == first.memory.total_usage + second.memory.total_usage
    if kind != "ollama":  # aimock reports no usage in Ollama's format
        assert thread.usage == Usage(input_tokens=150, output_tokens=24)
