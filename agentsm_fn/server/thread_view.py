"""A thread as the HTTP API shows it: its conversation numbered by turn, its records as JSON, redacted."""

from __future__ import annotations

from agentsm_fn.durable.stores.protocol.threads import ThreadRecord, TurnRecord
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import ToolResultMessage, UserMessage
from agentsm_fn.llm.numbering import Numbered, numbered
from agentsm_fn.server.thread_models import (
    ThreadCall,
    ThreadMessage,
    ThreadMessages,
    ThreadSummary,
    TurnSummary,
)
from agentsm_fn.server.values import public_json
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["message_json", "messages_json", "thread_json", "turn_json"]


def message_json(item: Numbered) -> ThreadMessage:
    """One numbered message as the API shows it, redacted.

    Example:
        >>> message_json(Numbered(0, 0, UserMessage("key sk-abcdefghijklmnopqrstuv"))).content
        'key [redacted]'
    """
    message = item.message
    content = redact_credentials(message.content)
    if isinstance(message, UserMessage):
        return ThreadMessage(turn=item.turn, role="user", content=content)
    if isinstance(message, ToolResultMessage):
        call = redact_credentials(message.tool_call_id)
        return ThreadMessage(
            turn=item.turn, role="tool", content=content, tool_call_id=call, error=message.is_error
        )
    calls = [_call(call.id, call.name, thaw(call.arguments)) for call in message.tool_calls]
    return ThreadMessage(turn=item.turn, role="assistant", content=content, tool_calls=calls)


def _call(call_id: str, name: str, arguments: object) -> ThreadCall:
    shown = public_json(arguments)
    return ThreadCall(
        id=redact_credentials(call_id),
        name=redact_credentials(name),
        arguments=shown if isinstance(shown, dict) else {},
    )


def messages_json(thread_id: str, conversation: Conversation) -> ThreadMessages:
    """A thread's conversation as the API shows it.

    Example:
        >>> from agentsm_fn.llm import AssistantMessage
        >>> c = Conversation().then([UserMessage("I am Ada."), AssistantMessage("Hello Ada!")])
        >>> shown = messages_json("t1", c)
        >>> shown.turns, [(m.turn, m.role) for m in shown.messages]
        (1, [(0, 'user'), (0, 'assistant')])
    """
    return ThreadMessages(
        thread_id=thread_id,
        turns=conversation.turns,
        summary=redact_credentials(conversation.summary),
        summarized=conversation.summarized,
        messages=[message_json(item) for item in numbered(conversation)],
    )


def turn_json(turn: TurnRecord) -> TurnSummary:
    """A stored turn as the API shows it (its message redacted).

    Example:
        >>> from agentsm_fn.durable.stores.protocol.threads import TurnStatus
        >>> turn_json(TurnRecord(thread_id="t1", turn=0, run_id="r1", message="hi", created=1.0,
        ...                      status=TurnStatus.WAITING)).status
        'waiting'
    """
    return TurnSummary(
        thread_id=turn.thread_id,
        turn=turn.turn,
        run_id=turn.run_id,
        message=redact_credentials(turn.message),
        created=turn.created,
        status=turn.status.value,
        holder=turn.holder,
    )


def thread_json(thread: ThreadRecord) -> ThreadSummary:
    """A stored thread as the API shows it.

    Example:
        >>> record = ThreadRecord(thread_id="t1", machine="app:A", created=1.0, updated=2.0)
        >>> thread_json(record).parent is None
        True
    """
    return ThreadSummary(
        thread_id=thread.thread_id,
        machine=thread.machine,
        created=thread.created,
        updated=thread.updated,
        turns=thread.turns,
        title=redact_credentials(thread.title),
        parent=thread.parent or None,
        parent_turn=thread.parent_turn if thread.parent else None,
        last=None if thread.last is None else turn_json(thread.last),
        holder=thread.holder,
    )
