"""A triage agent that hands refunds to a refunds agent, whose refund needs approval, served over AG-UI.

    python examples/triage_refunds.py                                     # all of it, offline, then stops
    python examples/triage_refunds.py --db runs.db --serve [--port 8000]  # serve a store until Ctrl-C
    agentsm-runs --db runs.db serve --agui triage_refunds:TRIAGE          # the same, from this folder

``TRIAGE`` answers what it can and hands a refund to ``REFUNDS`` (``transfer_to_refunds``,
showing it only what the customer said: ``customer_only``). ``REFUNDS`` calls ``issue_refund``,
which needs a person's approval. Both are durable ReAct agents named ``triage_refunds:NAME``, so
the store runs the refunds agent as a child run of the triage run, and ``TEAM`` is what the
verifier proves of the two (``python -m verification examples/triage_refunds.py:TEAM``).

The demo serves ``TRIAGE`` over AG-UI on 127.0.0.1 and talks to it as a chat page does: a
customer asks for a refund, the run ends with an AG-UI interrupt asking to approve the refund
(it waits in the refunds agent's run), and the page approves it: the refund is issued once and
the refunds agent's answer is the run's. The models are offline scripts that answer from the request alone, or
a real provider when OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST is set (``_common.py``).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
from _common import choose_llm
from serve_approvals import serving

from agentsm_fn.agents.react import agent_failure
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.llm import LlmReply, LlmRequest, Message, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.server.agui import with_agui
from agentsm_fn.server.serve import serve_runs
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.teams import Handoff, Team
from agentsm_fn.tools import tool

REFUNDED: list[str] = []
"""The orders ``issue_refund`` refunded in this process (the demo and the tests count them)."""


@tool(needs_approval=True)
def issue_refund(order: str) -> str:
    """Refund an order in full (a person approves it first).

    Args:
        order: The order number, e.g. B-42.
    """
    REFUNDED.append(order)
    return f"order {order} is refunded"


def customer_only(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The input filter of the handoff: the refunds agent sees what the customer said, nothing else."""
    return tuple(m for m in messages if isinstance(m, UserMessage))


def _asked(request: LlmRequest) -> str:
    said = [m.content for m in request.messages if isinstance(m, UserMessage)]
    return said[-1] if said else ""


class TriageScript:
    """The offline triage model: a refund goes to the refunds agent; anything else it answers."""

    def complete(self, request: LlmRequest) -> LlmReply:
        if "refund" in _asked(request).lower():
            transfer = ToolCall(f"transfer-{len(request.messages)}", "transfer_to_refunds", {})
            return LlmReply(tool_calls=(transfer,))
        return LlmReply(content="I can help with orders; for a refund, just ask.")


class RefundsScript:
    """The offline refunds model: it refunds the order the customer named, then says it did."""

    def complete(self, request: LlmRequest) -> LlmReply:
        last, order = request.messages[-1], re.search(r"[A-Z]-\d+", _asked(request))
        if isinstance(last, ToolResultMessage):
            return LlmReply(content=f"Done: {last.content.removeprefix('SUCCESS: ')}.")
        if order is None:
            return LlmReply(content="Which order should I refund?")
        refund = ToolCall(f"refund-{len(request.messages)}", "issue_refund", {"order": order.group(0)})
        return LlmReply(tool_calls=(refund,))  # a call id of its own: each turn's calls are in the thread


def _durable(name: str, builder: AgentBuilder[str]) -> Durable[Any, Any, Any]:
    """A built agent as a durable program whose runs are turns (its template is its memory)."""
    agent = builder.build().unwrap()
    return Durable(
        name=name, machine=agent.machine, shell=agent.shell, template=agent.memory, failure=agent_failure
    )


REFUNDS = _durable(
    "triage_refunds:REFUNDS",
    AgentBuilder.new("")
    .llm(choose_llm(False, RefundsScript).provider)
    .system_prompt("You issue refunds. Ask which order if you are not told.")
    .tools(issue_refund)
    .suspend_for_approval(),
)
TRIAGE = _durable(
    "triage_refunds:TRIAGE",
    AgentBuilder.new("")
    .llm(choose_llm(False, TriageScript).provider)
    .system_prompt("You are a shop's front desk. Hand refunds to the refunds agent.")
    .handoff(REFUNDS, description="Refunds of orders", input_filter=customer_only),
)
TEAM = Team(
    agents={TRIAGE.name: TRIAGE.machine, REFUNDS.name: REFUNDS.machine},
    handoffs=(
        Handoff(source=TRIAGE.name, target=REFUNDS.name, machine=REFUNDS.machine, input_filter=customer_only),
    ),
    name="triage_refunds:TEAM",
)


def _post(http: httpx.Client, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One AG-UI run: the events the server sent."""
    response = http.post(f"/agui/{TRIAGE.name}", json=body)
    response.raise_for_status()
    lines = response.text.splitlines()
    return [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data: ")]


def demo() -> int:
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        routers = with_agui([TRIAGE, REFUNDS]).unwrap()
        with serving(store, TRIAGE, routers) as url, httpx.Client(base_url=url, timeout=60) as http:
            said = [{"id": "u1", "role": "user", "content": "Please refund my order B-42."}]
            print(f"customer: {said[0]['content']}")
            events = _post(http, {"threadId": "chat-1", "runId": "turn-1", "messages": said})
            steps = [e["stepName"] for e in events if e["type"] == "STEP_STARTED"]
            print(f"  steps: {', '.join(steps)}")
            (asked,) = events[-1]["outcome"]["interrupts"]  # RUN_FINISHED, outcome "interrupt"
            print(f"  the AG-UI run ends with an interrupt: {asked['id']} {asked['message']}")
            answer = [{"interruptId": asked["id"], "status": "resolved", "payload": {"approved": True}}]
            resumed = {"threadId": "chat-1", "runId": "turn-1-approved", "messages": said, "resume": answer}
            events = _post(http, resumed)
            text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
            print(f"  approved; {events[-1]['type']}: {text}")
            print(f"refunds issued: {REFUNDED}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", metavar="FILE", help="the SQLite run store to serve (with --serve)")
    parser.add_argument("--serve", action="store_true", help="serve --db over AG-UI until Ctrl-C")
    parser.add_argument("--port", type=int, default=8000, help="the port for --serve (default 8000)")
    args = parser.parse_args(argv)
    if not args.serve:
        return demo()
    if not args.db:
        parser.error("--serve needs --db FILE")
    with closing(SqliteStore.open(args.db).unwrap()) as store:
        routers = with_agui([TRIAGE, REFUNDS]).unwrap()
        return serve_runs(store, [TRIAGE, REFUNDS], port=args.port, routers=routers)


if __name__ == "__main__":  # run as the module the store loads the agents from (triage_refunds:NAME)
    import triage_refunds

    raise SystemExit(triage_refunds.main())
