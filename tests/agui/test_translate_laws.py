"""Whatever a run does, the translator's events are a well-formed AG-UI stream (Hypothesis).

A run is generated as a sequence of blocks as the observer reports them: moves between states, LLM calls
(streamed or not, with text and tool calls, ending in a reply or a failure) and tool runs. The laws:
text messages open, get content and close without nesting; a tool call starts once, gets arguments only
while open, and ends once; a result names a call that was announced; steps open and close in turn.
"""

from __future__ import annotations

import json

from ag_ui.core import BaseEvent
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.agents.react.effects import RunTool
from agentsm_fn.agents.react.outcomes import ReactToolResult
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply, LlmRequest, ToolCall, UserMessage
from agentsm_fn.providers.events import TextDelta, ToolCallArguments, ToolCallStarted
from agentsm_fn.server.agui.feed import EffectEnded, EffectStarted, Happening, Moved, Streamed
from agentsm_fn.server.agui.translate import Translator

CALL = LlmCall(LlmRequest(model="m", messages=(UserMessage("q"),)))
STATES = st.sampled_from(["Planning", "Acting", "Observing"])
names = st.text(alphabet="abc", min_size=1, max_size=3)


@st.composite
def llm_call(draw: st.DrawFn, number: int) -> list[Happening]:
    text = draw(st.lists(st.text(min_size=1, max_size=4), max_size=3))
    calls = [ToolCall(f"c{number}_{i}", draw(names), {"n": i}) for i in range(draw(st.integers(0, 2)))]
    streamed = draw(st.booleans())
    happenings: list[Happening] = [EffectStarted(CALL)]
    if streamed:
        happenings += [Streamed(TextDelta(piece)) for piece in text]
        for index, call in enumerate(calls):
            arguments = json.dumps(dict(call.arguments))
            happenings += [
                Streamed(ToolCallStarted(index, call.id, call.name)),
                Streamed(ToolCallArguments(index, arguments[:3])),
                Streamed(ToolCallArguments(index, arguments[3:])),
            ]
    if draw(st.booleans()):
        happenings.append(EffectEnded(CALL, LlmReply(content="".join(text), tool_calls=tuple(calls))))
        for call in calls:
            run = RunTool(call)
            result = ReactToolResult(call_id=call.id, name=call.name, ok=True, output="ok")
            happenings += [EffectStarted(run), EffectEnded(run, result)]
    else:
        failure = LlmFailure(kind=LlmFailureKind.TIMEOUT, message="late", provider="p")
        happenings.append(EffectEnded(CALL, failure))
    return happenings


@st.composite
def runs(draw: st.DrawFn) -> list[Happening]:
    happenings: list[Happening] = []
    state = "Idle"
    for number in range(draw(st.integers(0, 4))):
        target = draw(STATES)
        happenings.append(Moved(state, target))
        state = target
        happenings += draw(llm_call(number))
    return happenings


def check(events: list[BaseEvent]) -> None:
    open_text: str | None = None
    started: set[str] = set()
    open_calls: set[str] = set()
    step: str | None = None
    for event in events:
        kind, fields = event.type.value, event.model_dump()
        if kind == "TEXT_MESSAGE_START":
            assert open_text is None, "nested text message"
            open_text = fields["message_id"]
        elif kind == "TEXT_MESSAGE_CONTENT":
            assert fields["message_id"] == open_text and fields["delta"]
        elif kind == "TEXT_MESSAGE_END":
            assert fields["message_id"] == open_text
            open_text = None
        elif kind == "TOOL_CALL_START":
            assert open_text is None and fields["tool_call_id"] not in started
            started.add(fields["tool_call_id"])
            open_calls.add(fields["tool_call_id"])
        elif kind == "TOOL_CALL_ARGS":
            assert fields["tool_call_id"] in open_calls
        elif kind == "TOOL_CALL_END":
            assert fields["tool_call_id"] in open_calls
            open_calls.discard(fields["tool_call_id"])
        elif kind == "TOOL_CALL_RESULT":
            assert fields["tool_call_id"] in started and fields["tool_call_id"] not in open_calls
        elif kind == "STEP_STARTED":
            assert step is None
            step = fields["step_name"]
        elif kind == "STEP_FINISHED":
            assert step == fields["step_name"]
            step = None
    assert open_text is None and not open_calls and step is None


@given(runs())
def test_the_events_of_any_run_are_a_well_formed_stream(happenings: list[Happening]) -> None:
    translator = Translator("r")
    events = translator.opening("Idle", {"step": 0})
    for happening in happenings:
        events += translator.feed(happening)
    events += translator.stopping({"step": 1})
    check(events)
    assert events[-2].type.value == "STATE_DELTA"
