"""Where an AG-UI request's conversation meets the stored thread: a new turn, an edit, or a problem.

An AG-UI client sends its whole conversation with every request; the server trusts the store,
and reads from the request only what the user did since: the user messages, each compared with
the stored turn it stands for. A user message of ours (sent in a ``MESSAGES_SNAPSHOT``) names its
turn in its id (``RUN:turn-N``); another (one the client made) stands for the turn after the one
before it (the first: turn 0). Then, in order::

    every user message says what its turn's message said   nothing new: refused
    the last one stands for the turn after the last         a new turn (``Continue``)
    the last one differs from its turn's message            the user edited it: fork there (``Edit``)
    an earlier one differs, or one stands for no turn       refused, naming the message

Texts are compared without surrounding whitespace, and a stored message is also matched by its
redacted form (what the snapshot showed). The snapshot's messages are named by their turn
(:func:`~agentsm_fn.llm.numbering.numbered`): ``RUN:turn-N`` a turn's user message,
``RUN:turn-N.P`` its P-th message after it, ``RUN:summary`` the summary of compressed turns (a
system message, never compared).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import attrs
from ag_ui.core import AssistantMessage as AguiAssistant
from ag_ui.core import FunctionCall, Message
from ag_ui.core import SystemMessage as AguiSystem
from ag_ui.core import ToolCall as AguiCall
from ag_ui.core import ToolMessage as AguiTool
from ag_ui.core import UserMessage as AguiUser
from returns.result import Failure, Result, Success

from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.llm.conversation import SUMMARY_PREFIX, Conversation
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import ToolResultMessage, UserMessage
from agentsm_fn.llm.numbering import Numbered, numbered
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["Continue", "Edit", "Placed", "place", "snapshot_messages", "turn_named"]

_NAMED = re.compile(r":turn-(\d{1,9})$")


@attrs.frozen
class Continue:
    """The request adds turn ``turn`` (the thread's next) with ``message``."""

    turn: int
    message: str


@attrs.frozen
class Edit:
    """The user edited turn ``turn``'s message to ``message``: fork the thread there and run it."""

    turn: int
    message: str


Placed = Continue | Edit


def turn_named(message_id: str) -> int | None:
    """The turn whose user message a snapshot of ours gave this id (None: an id the client made).

    Example:
        >>> turn_named("run-7:turn-2"), turn_named("run-7:turn-2.1"), turn_named("u1")
        (2, None, None)
    """
    found = _NAMED.search(message_id)
    return None if found is None else int(found.group(1))


def _same(text: str, stored: str) -> bool:
    given = text.strip()
    return given == stored.strip() or given == redact_credentials(stored).strip()


def place(users: Sequence[tuple[str, str]], turns: Sequence[str]) -> Result[Placed, FieldProblem]:
    """Where the user messages ``(id, text)`` of a request meet the stored turns' messages (see the module).

    Example:
        >>> place([("u1", "I am Ada.")], [])
        <Success: Continue(turn=0, message='I am Ada.')>
        >>> place([("r:turn-0", "I am Ada."), ("u2", "Who am I?")], ["I am Ada."])
        <Success: Continue(turn=1, message='Who am I?')>
        >>> place([("r:turn-0", "I am Grace.")], ["I am Ada.", "Who am I?"])
        <Success: Edit(turn=0, message='I am Grace.')>
        >>> place([("r:turn-0", "I am Ada.")], ["I am Ada."]).failure().detail
        'no new user message: every one is a turn of the thread already (it has 1)'
    """
    if not users:
        return Failure(FieldProblem(field="messages", detail="no user message to act on"))
    expected, last = 0, len(users) - 1
    for index, (message_id, text) in enumerate(users):
        named = turn_named(message_id)
        turn = expected if named is None else named
        where = f"messages (user message {index})"
        if turn < len(turns) and _same(text, turns[turn]):
            expected = turn + 1
            continue
        if turn > len(turns):
            return Failure(
                FieldProblem(field=where, detail=f"names turn {turn}: the thread has {len(turns)}")
            )
        if index != last:
            what = f"differs from turn {turn}'s" if turn < len(turns) else f"is new (turn {turn})"
            detail = f"{what}, and user messages follow it: only the last user message may be new or edited"
            return Failure(FieldProblem(field=where, detail=detail))
        if not text.strip():
            return Failure(FieldProblem(field=where, detail="no user message to act on"))
        return Success((Edit if turn < len(turns) else Continue)(turn, text.strip()))
    detail = f"no new user message: every one is a turn of the thread already (it has {len(turns)})"
    return Failure(FieldProblem(field="messages", detail=detail))


def _shown(run_id: str, item: Numbered) -> Message:
    message = item.message
    name = f"{run_id}:turn-{item.turn}" + (f".{item.place}" if item.place else "")
    content = redact_credentials(message.content)
    if isinstance(message, UserMessage):
        return AguiUser(id=name, content=content)
    if isinstance(message, ToolResultMessage):
        error = content if message.is_error else None
        return AguiTool(id=name, content=content, tool_call_id=message.tool_call_id, error=error)
    calls = [
        AguiCall(
            id=call.id,
            type="function",
            function=FunctionCall(
                name=call.name, arguments=redact_credentials(json.dumps(thaw(call.arguments)))
            ),
        )
        for call in message.tool_calls
    ]
    return AguiAssistant(id=name, content=content or None, tool_calls=calls or None)


def snapshot_messages(run_id: str, conversation: Conversation) -> list[Message]:
    """The thread's conversation as AG-UI messages, named for AG-UI run ``run_id`` (see the module).

    Example:
        >>> c = Conversation(summary="Ada asked about orders.").then([UserMessage("Thanks!")])
        >>> [(m.id, m.role) for m in snapshot_messages("r2", c)]
        [('r2:summary', 'system'), ('r2:turn-0', 'user')]
    """
    head: list[Message] = []
    if conversation.summary:
        text = redact_credentials(SUMMARY_PREFIX + conversation.summary)
        head.append(AguiSystem(id=f"{run_id}:summary", content=text))
    return [*head, *(_shown(run_id, item) for item in numbered(conversation))]
