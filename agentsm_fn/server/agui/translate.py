"""What a run does, as AG-UI events: steps, text messages, tool calls and their results, state.

One :class:`Translator` per AG-UI run. It is fed the run's happenings in order
(:mod:`agentsm_fn.server.agui.feed`) and returns the protocol's events for each::

    the run starts in S        STATE_SNAPSHOT (the memory's public fields), STEP_STARTED S
    S -> T                     STEP_FINISHED S, STEP_STARTED T
    an LLM call                TEXT_MESSAGE_START, one CONTENT per text delta a streaming
                               provider reports (the whole text at once when it does not
                               stream), END; per tool call TOOL_CALL_START, one ARGS per
                               argument fragment (or all of them), END; the message is
                               the calls' parent
    a tool ran                 TOOL_CALL_RESULT (its observation); a tool call no reply
                               announced (a user machine's) gets START/ARGS/END first
    the run stops in S         STATE_DELTA (JSON Patch from the last state sent), STEP_FINISHED S

RUN_STARTED, RUN_FINISHED and RUN_ERROR are the endpoint's: they depend on where the
stored run stands. Message ids are ``RUN:m1``, ``RUN:m2``, ... (RUN: the AG-UI run id), a
tool result's ``RUN:result:CALL``, so they are unique in the thread.
"""

from __future__ import annotations

import json

from ag_ui.core import (
    BaseEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.outcomes import ReactToolResult, ToolBatchResult
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.json import JsonObject, thaw
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmReply
from agentsm_fn.providers.events import TextDelta, ToolCallArguments, ToolCallStarted
from agentsm_fn.server.agui.feed import EffectEnded, EffectStarted, Happening, Moved, RunStopped, Streamed
from agentsm_fn.server.agui.state import public_state, state_patch
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["Translator"]


class Translator:
    """Turns one run's happenings into AG-UI events (see the module docstring).

    Example:
        >>> t = Translator("r1")
        >>> [e.type.value for e in t.opening("Idle", {"step": 0})]
        ['STATE_SNAPSHOT', 'STEP_STARTED']
        >>> [e.type.value for e in t.feed(Moved("Idle", "Planning"))]
        ['STEP_FINISHED', 'STEP_STARTED']
    """

    def __init__(self, run_id: str, announced: frozenset[str] = frozenset()) -> None:
        self.run_id = run_id
        self.state: JsonObject = {}
        self.step = ""
        self.messages = 0
        self.announced: set[str] = set(announced)
        """Tool calls whose START was sent (in this AG-UI run, or the one it resumes)."""
        self.reply = ""
        """The message id of the LLM call in progress ("" between calls)."""
        self.text_open = self.text_streamed = False
        self.open_calls: dict[int, str] = {}
        """The streamed tool calls of the LLM call in progress, by their index in the reply."""

    def opening(self, state: str, shown: JsonObject) -> list[BaseEvent]:
        """The first events: the state the run starts from, and its first step."""
        self.state, self.step = shown, state
        return [StateSnapshotEvent(snapshot=dict(shown)), StepStartedEvent(step_name=state)]

    def feed(self, happening: Happening) -> list[BaseEvent]:
        """The events for one thing the run did."""
        match happening:
            case Moved(state=state, target=target):
                self.step = target
                return [StepFinishedEvent(step_name=state), StepStartedEvent(step_name=target)]
            case EffectStarted(effect=LlmCall()):
                self.reply, self.text_open, self.text_streamed = self._message_id(), False, False
                return []
            case Streamed(delta=TextDelta(text=text)) if text:
                return self._text(text)
            case Streamed(delta=ToolCallStarted(index=index, id=call_id, name=name)):
                self.open_calls[index] = call_id
                self.announced.add(call_id)
                parent = self.reply or None
                return [
                    *self._close_text(),
                    ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id=parent),
                ]
            case Streamed(delta=ToolCallArguments(index=index, fragment=fragment)) if fragment:
                streaming = self.open_calls.get(index)
                if streaming is None:
                    return []
                return [ToolCallArgsEvent(tool_call_id=streaming, delta=redact_credentials(fragment))]
            case EffectStarted(effect=RunTool(call=call)):
                return self._announce(call, None)
            case EffectStarted(effect=RunToolBatch(runs=runs)):
                return [event for run in runs for event in self._announce(run.call, None)]
            case EffectEnded(outcome=LlmReply() as reply):
                return self._reply(reply)
            case EffectEnded(effect=LlmCall()):  # it failed: close what it streamed
                return self._reply(LlmReply())
            case EffectEnded(outcome=ReactToolResult() as result):
                return [self._result(result)]
            case EffectEnded(outcome=ToolBatchResult(results=results)):
                return [self._result(result) for result in results]
            case RunStopped(end=end):
                return self.stopping(public_state(end.snapshot.memory))
        return []

    def stopping(self, shown: JsonObject) -> list[BaseEvent]:
        """The last events of a run that stopped with memory ``shown``: the state's change, the step's end."""
        events: list[BaseEvent] = []
        patch = state_patch(self.state, shown)
        if patch:
            events.append(StateDeltaEvent.model_validate({"delta": patch}))
        self.state = shown
        if self.step:
            events.append(StepFinishedEvent(step_name=self.step))
            self.step = ""
        return events

    def _message_id(self) -> str:
        self.messages += 1
        return f"{self.run_id}:m{self.messages}"

    def _text(self, text: str) -> list[BaseEvent]:
        if not self.reply:
            self.reply = self._message_id()
        events: list[BaseEvent] = []
        if not self.text_open:
            events.append(TextMessageStartEvent(message_id=self.reply, role="assistant"))
            self.text_open = True
        self.text_streamed = True
        return [*events, TextMessageContentEvent(message_id=self.reply, delta=redact_credentials(text))]

    def _close_text(self) -> list[BaseEvent]:
        if not self.text_open:
            return []
        self.text_open = False
        return [TextMessageEndEvent(message_id=self.reply)]

    def _reply(self, reply: LlmReply) -> list[BaseEvent]:
        """The end of an LLM call: what it did not stream, then the end of what it did."""
        events = [] if self.text_streamed or not reply.content else self._text(reply.content)
        events += self._close_text()
        events += [ToolCallEndEvent(tool_call_id=call_id) for call_id in self.open_calls.values()]
        message = self.reply or self._message_id()
        for call in reply.tool_calls:
            events += self._announce(call, message)
        self.reply, self.open_calls = "", {}
        return events

    def _announce(self, call: ToolCall, parent: str | None) -> list[BaseEvent]:
        if call.id in self.announced:
            return []
        self.announced.add(call.id)
        arguments = redact_credentials(json.dumps(thaw(call.arguments)))
        return [
            ToolCallStartEvent(tool_call_id=call.id, tool_call_name=call.name, parent_message_id=parent),
            ToolCallArgsEvent(tool_call_id=call.id, delta=arguments),
            ToolCallEndEvent(tool_call_id=call.id),
        ]

    def _result(self, result: ReactToolResult) -> BaseEvent:
        return ToolCallResultEvent(
            message_id=f"{self.run_id}:result:{result.call_id}",
            tool_call_id=result.call_id,
            content=redact_credentials(result.observation),
        )
