"""A multi-turn support chat served over AG-UI: the conversation lives in the store, not in the browser.

    python examples/support_chat.py                                     # all of it, offline, then stops
    python examples/support_chat.py --db runs.db --serve [--port 8000]  # serve a store until Ctrl-C
    agentsm-runs --db runs.db serve --agui support_chat:SUPPORT         # the same, from this folder

``SUPPORT`` is a ReAct agent with two tools (``order_status``; ``refund``, which needs a person's
approval) as a durable program whose template is the agent's memory, so its runs are a thread's
turns: AG-UI's ``threadId`` names the thread, and each request that says something new is the
thread's next turn, started from the thread so far in the store. The demo serves it on 127.0.0.1
and talks to it as a chat page does: it sends its messages with each request, and the server
answers with the thread's conversation first (``MESSAGES_SNAPSHOT``) and then the turn. The LLM
is offline (``SupportDesk``, which answers from the request alone, remembering nothing: what it
knows of earlier turns is what the server sent it), or any OpenAI-compatible server with
``SUPPORT_CHAT_LLM_URL`` set (aimock in the tests; ``SUPPORT_CHAT_MODEL``, ``OPENAI_API_KEY``).

Shown: the third turn knows the name given in the first; a message sent while a refund waits for
approval is refused (409 ``thread_busy``, naming the turn); editing the second message forks the
thread there (``GET /threads?parent=...`` lists the fork) and the conversation goes on in the fork.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
from serve_approvals import serving

from agentsm_fn.agents.react import agent_failure
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.llm import AnyLlmProvider, LlmReply, LlmRequest, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.providers import openai_provider
from agentsm_fn.server.agui import with_agui
from agentsm_fn.server.serve import serve_runs
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.tools import tool

ORDERS = {"A-17": "ships tomorrow", "B-42": "was delivered yesterday"}


@tool
def order_status(order: str) -> str:
    """Where an order is.

    Args:
        order: The order number, e.g. A-17.
    """
    return ORDERS.get(order, "is not an order we know")


@tool(needs_approval=True)
def refund(order: str) -> str:
    """Refund an order (a person approves it first).

    Args:
        order: The order number.
    """
    return "is refunded"


class SupportDesk:
    """An offline LLM that answers from the request alone: the customer's words, then the tool results."""

    def complete(self, request: LlmRequest) -> LlmReply:
        said = [m.content for m in request.messages if isinstance(m, UserMessage)]
        names = [found.group(1) for text in said if (found := re.search(r"[Mm]y name is (\w+)", text))]
        name = f", {names[-1]}" if names else ""
        last, asked = request.messages[-1], said[-1] if said else ""
        order = re.search(r"[A-Z]-\d+", asked)
        if isinstance(last, ToolResultMessage):
            done = last.content.removeprefix("SUCCESS: ")
            return LlmReply(content=f"Order {order.group(0) if order else ''} {done}{name}.")
        if order and "refund" in asked.lower():
            return LlmReply(tool_calls=(ToolCall("call_refund", "refund", {"order": order.group(0)}),))
        if order:
            return LlmReply(tool_calls=(ToolCall("call_status", "order_status", {"order": order.group(0)}),))
        if "my name is" in asked.lower():
            return LlmReply(content=f"Nice to meet you{name}! How can I help you today?")
        if "my name" in asked.lower():
            return LlmReply(
                content=f"Your name is {names[-1]}, as you told me."
                if names
                else "You did not tell me your name."
            )
        return LlmReply(content=f"You are welcome{name}. Anything else?")


def llm() -> AnyLlmProvider:
    """The offline desk, or the OpenAI-compatible server at ``SUPPORT_CHAT_LLM_URL`` (streamed)."""
    url = os.environ.get("SUPPORT_CHAT_LLM_URL")
    if not url:
        return SupportDesk()
    model = os.environ.get("SUPPORT_CHAT_MODEL", "gpt-4o-mini")
    return openai_provider(
        model, base_url=url, api_key=os.environ.get("OPENAI_API_KEY", "unused"), stream=True
    )


def support_agent(provider: AnyLlmProvider) -> Durable[Any, Any, Any]:
    """The support agent as a durable program whose runs are a thread's turns."""
    built = (
        AgentBuilder.new("")
        .llm(provider)
        .system_prompt("You are the support desk of a shop. Be brief.")
        .tools(order_status, refund)
        .suspend_for_approval()
        .build()
        .unwrap()
    )
    return Durable(
        name="support_chat:SUPPORT",
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
        failure=agent_failure,
    )


SUPPORT = support_agent(llm())
"""What ``agentsm-runs serve --agui support_chat:SUPPORT`` serves."""


class ChatPage:
    """What a chat page does: it keeps the messages it shows, and sends them all with each request."""

    def __init__(self, http: httpx.Client, thread: str) -> None:
        self.http, self.thread, self.runs = http, thread, itertools.count(1)
        self.messages: list[dict[str, Any]] = []
        self.interrupts: list[dict[str, Any]] = []

    def say(self, text: str) -> httpx.Response:
        """Add a user message and run the agent."""
        self.messages.append({"id": f"typed-{len(self.messages)}", "role": "user", "content": text})
        return self.run()

    def edit(self, user: int, text: str) -> httpx.Response:
        """Edit the page's ``user``-th user message and drop what came after it, then run the agent."""
        users = [i for i, m in enumerate(self.messages) if m["role"] == "user"]
        self.messages = [*self.messages[: users[user]], {**self.messages[users[user]], "content": text}]
        return self.run()

    def approve(self) -> httpx.Response:
        """Answer the interrupt the last run ended with: approved."""
        answer = [
            {"interruptId": i["id"], "status": "resolved", "payload": {"approved": True}}
            for i in self.interrupts
        ]
        return self.run(resume=answer)

    def run(self, resume: list[dict[str, Any]] | None = None) -> httpx.Response:
        body = {
            "threadId": self.thread,
            "runId": f"{self.thread}-run-{next(self.runs)}",
            "messages": self.messages,
        }
        response = self.http.post("/agui/support_chat:SUPPORT", json={**body, "resume": resume or []})
        if response.status_code != 200:
            return response
        self.interrupts = []
        for line in response.text.splitlines():
            if line.startswith("data: "):
                self.apply(json.loads(line.removeprefix("data: ")))
        return response

    def apply(self, event: dict[str, Any]) -> None:
        """What the page does with an event: show the store's conversation, then the turn's text."""
        kind = event["type"]
        if kind == "MESSAGES_SNAPSHOT":
            self.messages = event["messages"]
        elif kind == "TEXT_MESSAGE_START":
            self.messages.append({"id": event["messageId"], "role": "assistant", "content": ""})
        elif kind == "TEXT_MESSAGE_CONTENT":
            self.messages[-1]["content"] += event["delta"]
        elif kind == "RUN_FINISHED" and event.get("outcome", {}).get("type") == "interrupt":
            self.interrupts = event["outcome"]["interrupts"]
        elif kind == "RUN_ERROR":
            raise RuntimeError(f"the turn failed: {event['code']}: {event['message']}")

    def last_answer(self) -> str:
        """The text of the last assistant message the page shows."""
        said = [m["content"] for m in self.messages if m["role"] == "assistant" and m.get("content")]
        return str(said[-1])


def demo() -> int:
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        routers = with_agui([SUPPORT]).unwrap()
        with serving(store, SUPPORT, routers) as url, httpx.Client(base_url=url, timeout=60) as http:
            page = ChatPage(http, "support-1")
            for text in ("My name is Ada.", "Where is my order A-17?", "What is my name?"):
                page.say(text)
                print(f"user: {text}\n  agent: {page.last_answer()}")
            page.say("Please refund order B-42.")
            print(f"user: Please refund order B-42.\n  waits for approval: {page.interrupts[0]['message']}")
            busy = page.say("Hello? Are you there?")
            page.messages.pop()  # the page takes back the message the thread refused
            print(f"  a message meanwhile: {busy.status_code} {busy.json()['error']['kind']}")
            page.approve()
            print(f"  approved: {page.last_answer()}")
            page.edit(1, "Where is my order B-42?")
            print(f"user edits turn 1: Where is my order B-42?\n  agent: {page.last_answer()}")
            (fork,) = http.get("/threads", params={"parent": "support-1"}).json()["threads"]
            print(f"forked: {fork['thread_id']} from support-1 at turn {fork['parent_turn']}")
            page.say("What is my name?")
            print(f"user: What is my name?\n  agent: {page.last_answer()} (in the fork)")
            shown = http.get(f"/threads/{fork['thread_id']}/messages").json()["messages"]
            print(f"the fork's conversation: {[m['content'] for m in shown if m['role'] == 'user']}")
            original = http.get("/threads/support-1/turns").json()["turns"]
            print(f"support-1 is left as it was: {len(original)} turns")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", metavar="FILE", help="the SQLite run store to serve (with --serve)")
    parser.add_argument(
        "--serve", action="store_true", help="serve --db over AG-UI on 127.0.0.1 until Ctrl-C"
    )
    parser.add_argument("--port", type=int, default=8000, help="the port for --serve (default 8000)")
    args = parser.parse_args(argv)
    if not args.serve:
        return demo()
    if not args.db:
        parser.error("--serve needs --db FILE")
    with closing(SqliteStore.open(args.db).unwrap()) as store:
        return serve_runs(store, [SUPPORT], port=args.port, routers=with_agui([SUPPORT]).unwrap())


if __name__ == "__main__":
    raise SystemExit(main())
