"""One LLM call as AG-UI events: its text message and its tool calls, streamed or whole.

A :class:`ReplyEvents` is made when the call starts. A streaming provider's deltas arrive
through :meth:`~ReplyEvents.text` and the two tool-call methods; :meth:`~ReplyEvents.finish`
gets the reply (or nothing, when the call failed) and sends what was not streamed, then closes
what is open. Text and arguments go out through :class:`RedactedText`, word by word, so a
credential split across deltas is redacted too. Text after a tool call in the same reply is
a new message (an id is never opened twice). A tool call the reply gives without an id is not
announced from it: the machine names it (``call_1_0``), and the effect that runs it announces it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmReply
from agentsm_fn.server.agui.redacting import RedactedText

__all__ = ["ReplyEvents"]


class ReplyEvents:
    """The events of one LLM call; ``new_id`` names its messages, ``announced`` the calls sent already.

    Example:
        >>> ids = iter(["m1", "m2"])
        >>> reply = ReplyEvents(lambda: next(ids), set())
        >>> [e.type.value for e in reply.text("Hello there")]
        ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']
        >>> [(e.type.value, getattr(e, "delta", "")) for e in reply.finish(LlmReply(content="Hello there"))]
        [('TEXT_MESSAGE_CONTENT', 'there'), ('TEXT_MESSAGE_END', '')]
    """

    def __init__(self, new_id: Callable[[], str], announced: set[str]) -> None:
        self.new_id, self.announced = new_id, announced
        self.message = ""
        """The id of the text message open now ("" when none is)."""
        self.parent = ""
        """The id of the reply's first message: the parent of its tool calls."""
        self.words = RedactedText()
        self.streamed = False
        self.calls: dict[int, tuple[str, RedactedText]] = {}
        """The streamed tool calls still open, by their index in the reply."""

    def _content(self, out: str) -> list[BaseEvent]:
        if not out:
            return []
        events: list[BaseEvent] = []
        if not self.message:
            self.message = self.new_id()
            self.parent = self.parent or self.message
            events.append(TextMessageStartEvent(message_id=self.message, role="assistant"))
        return [*events, TextMessageContentEvent(message_id=self.message, delta=out)]

    def _close_text(self) -> list[BaseEvent]:
        events = self._content(self.words.end())
        if self.message:
            events.append(TextMessageEndEvent(message_id=self.message))
            self.message = ""
        return events

    def text(self, delta: str) -> list[BaseEvent]:
        """A text delta."""
        self.streamed = True
        return self._content(self.words.add(delta))

    def call_started(self, index: int, call_id: str, name: str) -> list[BaseEvent]:
        """A streamed tool call began: the text before it is closed."""
        events = self._close_text()
        self.parent = self.parent or self.new_id()
        self.announced.add(call_id)
        self.calls[index] = (call_id, RedactedText())
        start = ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id=self.parent)
        return [*events, start]

    def call_arguments(self, index: int, fragment: str) -> list[BaseEvent]:
        """A fragment of a streamed tool call's arguments."""
        if index not in self.calls:
            return []
        call_id, words = self.calls[index]
        out = words.add(fragment)
        return [ToolCallArgsEvent(tool_call_id=call_id, delta=out)] if out else []

    def _close_calls(self) -> list[BaseEvent]:
        events: list[BaseEvent] = []
        for call_id, words in self.calls.values():
            rest = words.end()
            if rest:
                events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=rest))
            events.append(ToolCallEndEvent(tool_call_id=call_id))
        self.calls = {}
        return events

    def finish(self, reply: LlmReply | None) -> list[BaseEvent]:
        """The call ended with ``reply`` (None: it failed): what was not streamed, then every end."""
        events = [] if self.streamed or reply is None else self.text(reply.content)
        events += self._close_text() + self._close_calls()
        for call in () if reply is None else reply.tool_calls:
            if call.id:  # one without an id is named by the machine: the tool run announces it
                events += self.announce(call)
        return events

    def announce(self, call: ToolCall) -> list[BaseEvent]:
        """A whole tool call (START, ARGS, END), unless it was announced already."""
        if call.id in self.announced:
            return []
        self.announced.add(call.id)
        words = RedactedText()
        arguments = words.add(json.dumps(thaw(call.arguments))) + words.end()
        self.parent = self.parent or self.new_id()
        return [
            ToolCallStartEvent(tool_call_id=call.id, tool_call_name=call.name, parent_message_id=self.parent),
            ToolCallArgsEvent(tool_call_id=call.id, delta=arguments),
            ToolCallEndEvent(tool_call_id=call.id),
        ]
