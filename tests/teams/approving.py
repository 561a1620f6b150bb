"""A desk agent whose agent tool is a refunds agent, whose refund tool needs a person's approval.

Shared by the store, HTTP and AG-UI tests of approvals inside a child (``REFUNDED`` counts the
refunds made, so a test sees an approved call run once). The models answer from the request
alone, as a real one does: a resumed run asks again only what its journal does not hold.
"""

from __future__ import annotations

from typing import Any

from agentsm_fn.agents.react import agent_failure, agent_result
from agentsm_fn.durable import Durable
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.teams import GatherPolicy, fan_out
from agentsm_fn.tools import tool
from tests.teams.programs import ASKING, ASKING_MACHINE, FANNER_MACHINE, PE, Boss, P, _gathered

REFUNDED: list[str] = []
"""The orders refunded, in order."""


@tool(needs_approval=True)
def refund(order: str) -> str:
    """Refund an order in full (needs a person's approval).

    Args:
        order: The order number.
    """
    REFUNDED.append(order)
    return f"{order} refunded"


class Refunder:
    """The refunds agent's model: it refunds the order it is asked about, then says what happened."""

    def complete(self, request: LlmRequest) -> LlmReply:
        seen = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        if seen:
            return LlmReply(content=f"Refund: {seen[-1]}")
        asked = [m.content for m in request.messages if isinstance(m, UserMessage)][-1]
        return LlmReply(tool_calls=(ToolCall("r1", "refund", {"order": asked.split()[-1]}),))


class Desk:
    """The desk's model: it asks the refunds agent first, then answers with what it observed."""

    def complete(self, request: LlmRequest) -> LlmReply:
        seen = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        if seen:
            return LlmReply(content=f"Desk: {seen[-1]}")
        return LlmReply(tool_calls=(ToolCall("c1", "ask_refunds", {"input": "Refund A-17"}),))


def _agent(name: str, builder: AgentBuilder[str]) -> Durable[Any, Any, Any]:
    built = builder.build().unwrap()
    return Durable(
        name=name,
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
        failure=agent_failure,
        result=agent_result,
    )


REFUNDS = _agent("tests.teams.approving:REFUNDS", AgentBuilder.new("").llm(Refunder()).tools(refund))
DESK = _agent(
    "tests.teams.approving:DESK",
    AgentBuilder.new("Please refund A-17").llm(Desk()).agent_tool("ask_refunds", "Refunds", REFUNDS),
)


ASKERS_LIMIT = 2
"""How many of ``ASKERS``' children run at once."""

ASKERS = Durable(
    name="tests.teams.approving:ASKERS",
    machine=FANNER_MACHINE.extend(
        handlers={
            P.ASK: fan_out(
                program=ASKING.name,
                child=ASKING_MACHINE,
                items=lambda boss: boss.items,
                all_finished=PE.ANSWERED,
                some_failed=PE.BROKE,
                limit=ASKERS_LIMIT,
                policy=GatherPolicy.GO_ON,
                merge=_gathered,
            )
        },
        name="teams-askers",
    ),
)
"""A fan-out over ``ASKING`` children, each waiting for a person's approval of its number."""

__all__ = ["ASKERS", "ASKERS_LIMIT", "Boss", "DESK", "REFUNDED", "REFUNDS"]
