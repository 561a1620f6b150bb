"""What a run does, as AG-UI events: steps, text messages, tool calls and their results, state.

One :class:`Translator` per AG-UI run. It is fed the run's happenings in order
(:mod:`agentsm_fn.server.agui.feed`) and returns the protocol's events for each::

    the run starts in S        STATE_SNAPSHOT (the memory's public fields), STEP_STARTED S
    S -> T                     STEP_FINISHED S, STEP_STARTED T, then STATE_DELTA (a JSON
                               Patch from the last state sent) if the step changed the
                               memory's public fields (none when it did not)
    an LLM call                (none for a guardrail's check: its guarding state is the step)
                               TEXT_MESSAGE_START, one CONTENT per text delta a streaming
                               provider reports (the whole text at once when it does not
                               stream), END; per tool call TOOL_CALL_START, one ARGS per
                               argument fragment (or all of them), END; the message is
                               the calls' parent
    a tool ran                 TOOL_CALL_RESULT (its observation); a tool call no reply
                               announced (a user machine's, or one the model sent without
                               an id, which the machine named) gets START/ARGS/END first.
                               Tools are the ReAct agent's (``RunTool``, ``RunToolBatch``)
                               and the plan-and-execute agent's batch (``RunTools``)
    the run stops in S         STATE_DELTA (what changed since the last one: a memory a
                               request left, say), STEP_FINISHED S
    a child run moved          STEP_STARTED / STEP_FINISHED named CHILD_RUN_ID/STATE
                               (:mod:`agentsm_fn.server.agui.children`); a child's step still
                               open when the run stops (the child waits for an answer) ends
                               there, before the parent's

RUN_STARTED, RUN_FINISHED and RUN_ERROR are the endpoint's: they depend on where the
stored run stands. Message ids are ``RUN:m1``, ``RUN:m2``, ... (RUN: the AG-UI run id), a
tool result's ``RUN:result:CALL``, so they are unique in the thread.
"""

from __future__ import annotations

from ag_ui.core import (
    BaseEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    ToolCallResultEvent,
)

from agentsm_fn.agents.plan_execute.effects import RunTools, ToolBatch
from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.outcomes import ReactToolResult, ToolBatchResult
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.json import JsonObject
from agentsm_fn.llm.replies import LlmReply
from agentsm_fn.providers.events import TextDelta, ToolCallArguments, ToolCallStarted
from agentsm_fn.server.agui.children import child_steps, waits_on_children
from agentsm_fn.server.agui.feed import (
    ChildStepped,
    EffectEnded,
    EffectStarted,
    Happening,
    MemoryAfter,
    Moved,
    RunStopped,
    Streamed,
)
from agentsm_fn.server.agui.reply import ReplyEvents
from agentsm_fn.server.agui.state import Shown, state_patch
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["Translator"]


def _streamed(reply: ReplyEvents, delta: object) -> list[BaseEvent]:
    """A streaming provider's delta (a provider ``StreamEvent``) of the LLM call ``reply``."""
    match delta:
        case TextDelta(text=text):
            return reply.text(text)
        case ToolCallStarted(index=index, id=call_id, name=name):
            return reply.call_started(index, call_id, name)
        case ToolCallArguments(index=index, fragment=fragment):
            return reply.call_arguments(index, fragment)
    return []


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
        self.reply: ReplyEvents | None = None
        """The LLM call in progress."""
        self.shown = Shown()
        self.children: dict[str, str] = {}
        """The open step of each child run (a child run id's ``CHILD/STATE``), in the order they began."""

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
            case MemoryAfter(memory=memory):
                return self._delta(self.shown(memory))
            case EffectStarted(effect=LlmCall(purpose=purpose)) if purpose.startswith("guardrail "):
                return []  # a guardrail's check: its verdict is no message (its state is a step)
            case EffectStarted(effect=LlmCall()):
                self.reply = ReplyEvents(self._message_id, self.announced)
                return []
            case Streamed(delta=delta) if self.reply is not None:
                return _streamed(self.reply, delta)
            case EffectEnded(effect=LlmCall(), outcome=outcome) if self.reply is not None:
                reply, self.reply = self.reply, None
                return reply.finish(outcome if isinstance(outcome, LlmReply) else None)
            case EffectStarted(effect=RunTool(call=call)):
                return self._tools().announce(call)
            case EffectStarted(effect=RunToolBatch(runs=runs)):
                tools = self._tools()
                return [event for run in runs for event in tools.announce(run.call)]
            case EffectStarted(effect=RunTools(calls=calls)):  # the plan-and-execute agent's batch
                tools = self._tools()
                return [event for call in calls for event in tools.announce(call)]
            case EffectEnded(outcome=ReactToolResult() as result):
                return [self._result(result.call_id, result.observation)]
            case EffectEnded(outcome=ToolBatchResult(results=results)):
                return [self._result(result.call_id, result.observation) for result in results]
            case EffectEnded(outcome=ToolBatch(results=results)):
                return [self._result(result.call_id, result.content) for result in results]
            case ChildStepped(event=child):
                return self._child(child.child_run_id, child_steps(child))
            case RunStopped(end=end) if waits_on_children(end.snapshot):
                return self._delta(self.shown(end.snapshot.memory))  # its step goes on around its children
            case RunStopped(end=end):
                return self.stopping(self.shown(end.snapshot.memory))
        return []

    def stopping(self, shown: JsonObject) -> list[BaseEvent]:
        """The last events of a run that stopped with memory ``shown``: the state's change, the step's end."""
        events = self._delta(shown)
        for child in reversed(list(self.children)):  # the innermost first: grandchildren began last
            events.append(StepFinishedEvent(step_name=self.children.pop(child)))
        if self.step:
            events.append(StepFinishedEvent(step_name=self.step))
            self.step = ""
        return events

    def said(self, text: str | None) -> list[BaseEvent]:
        """``text`` as a whole assistant message (none when it is empty): an answer no LLM reply carried.

        Example:
            >>> [e.type.value for e in Translator("r1").said("Done.")]
            ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']
        """
        if not text:
            return []
        reply = ReplyEvents(self._message_id, self.announced)
        return reply.text(text) + reply.finish(None)

    def _child(self, run_id: str, events: list[BaseEvent]) -> list[BaseEvent]:
        """A child's steps, its open one kept (to end it if the run stops first)."""
        for event in events:
            if isinstance(event, StepStartedEvent):
                self.children[run_id] = event.step_name
            elif isinstance(event, StepFinishedEvent) and self.children.get(run_id) == event.step_name:
                del self.children[run_id]
        return events

    def _delta(self, shown: JsonObject) -> list[BaseEvent]:
        """A STATE_DELTA from the last state sent to ``shown``, if they differ; ``shown`` is sent from now."""
        patch = state_patch(self.state, shown)
        self.state = shown
        return [StateDeltaEvent.model_validate({"delta": patch})] if patch else []

    def _message_id(self) -> str:
        self.messages += 1
        return f"{self.run_id}:m{self.messages}"

    def _tools(self) -> ReplyEvents:
        """Where tool calls no LLM reply announced (a user machine's) are announced from."""
        return ReplyEvents(self._message_id, self.announced)

    def _result(self, call_id: str, content: str) -> BaseEvent:
        return ToolCallResultEvent(
            message_id=f"{self.run_id}:result:{call_id}",
            tool_call_id=call_id,
            content=redact_credentials(content),
        )
