"""Threads for the inspector's tests: the support chat example's agent, its offline LLM, a thread of it."""

from __future__ import annotations

from typing import Any

import attrs

from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.llm import ThreadBudget
from tests.example_modules import example

support_chat = example("support_chat")

SAID = ("My name is Ada.", "Where is order A-17?", "Please refund order A-17.")
"""Turn 0 is answered at once, turn 1 after a tool call (order_status), turn 2 waits for an approval."""


def desk(context: int | None = 16_000) -> Durable[Any, Any, Any]:
    """The support agent on its offline LLM, with a thread context budget of ``context`` estimated tokens."""
    agent = support_chat.support_agent(support_chat.SupportDesk())
    config = attrs.evolve(agent.template.config, thread=ThreadBudget(context=context))
    return Durable(
        name=agent.name,
        machine=agent.machine,
        shell=agent.shell,
        template=agent.template.with_config(config),
        failure=agent.failure,
    )


def support_thread(store: SqliteStore, agent: Durable[Any, Any, Any], thread_id: str = "chat-1") -> list[str]:
    """Thread ``thread_id`` of :data:`SAID` (its last turn waiting for an approval); its turns' run ids."""
    return [agent.chat(store, thread_id, message).unwrap().run_id for message in SAID]
