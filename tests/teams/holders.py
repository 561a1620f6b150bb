"""A team for the holder tests: three ReAct agents that hand a thread's conversation to each other.

Each agent's model routes by the user's message alone (as a real one does): a message
``to:a,b`` names a route; an agent not on it hands to its first agent, an agent on it hands to
the next one, and the last one answers, saying who it is and how many user messages it saw.
Every model notes each message it was asked about (:data:`ASKED`), so a test tells which agent's
model a turn reached. Run as a script (``python -m tests.teams.holders DB THREAD MESSAGE``) it sends
one message to the thread on a store of its own: another process going on with the thread.
"""

from __future__ import annotations

import sys
from typing import Any

from agentsm_fn.agents.react import agent_failure
from agentsm_fn.durable import Durable, open_store
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, UserMessage
from agentsm_fn.shell.react_agent import AgentBuilder

AGENTS = ("triage", "refunds", "billing")
ASKED: list[tuple[str, str]] = []
"""(agent, message) for every model call, in order."""


def route(message: str) -> tuple[str, ...]:
    """The agents a message names (``to:refunds,billing``), in order; () for none."""
    said = [word for word in message.split() if word.startswith("to:")]
    return tuple(said[0][3:].split(",")) if said else ()


class Routing:
    """One agent's model: it hands the conversation on along the message's route, or answers."""

    def __init__(self, name: str) -> None:
        self.name = name

    def complete(self, request: LlmRequest) -> LlmReply:
        users = [m.content for m in request.messages if isinstance(m, UserMessage)]
        ASKED.append((self.name, users[-1]))
        path = route(users[-1])
        here = path.index(self.name) if self.name in path else -1
        if here + 1 < len(path):
            return LlmReply(tool_calls=(ToolCall(f"h{len(users)}", f"transfer_to_{path[here + 1]}", {}),))
        return LlmReply(content=f"{self.name} answers after {len(users)} user messages")


def _agent(name: str) -> Durable[Any, Any, Any]:
    builder = AgentBuilder.new("").llm(Routing(name))
    for other in AGENTS:
        if other != name:
            builder = builder.handoff(f"tests.teams.holders:{other.upper()}", target=other)
    built = builder.build().unwrap()
    return Durable(
        name=f"tests.teams.holders:{name.upper()}",
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
        failure=agent_failure,
    )


TRIAGE = _agent("triage")
REFUNDS = _agent("refunds")
BILLING = _agent("billing")


def main(argv: list[str]) -> int:
    """Send ``argv[2]`` to thread ``argv[1]`` of store ``argv[0]``; print the turn's program and answer."""
    db, thread_id, message = argv
    store = open_store(db).unwrap()
    try:
        turn = TRIAGE.chat(store, thread_id, message).unwrap()
        print(store.get(turn.run_id).unwrap().machine, turn.run.snapshot.memory.final_answer, sep="|")
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
