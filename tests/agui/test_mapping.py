"""The AG-UI mapping in Python: interrupt ids, answers, state patches, requests (Hypothesis where it fits)."""

from __future__ import annotations

import itertools

import attrs
import jsonpatch
from ag_ui.core import BaseEvent, ResumeEntry, RunAgentInput
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.agents.react import AgentMemory, HumanApprovalRequest
from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.outcomes import Approved, Modified, Rejected
from agentsm_fn.llm import (
    AssistantMessage,
    LlmCall,
    LlmFailure,
    LlmFailureKind,
    LlmReply,
    LlmRequest,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from agentsm_fn.llm.json import JsonObject, thaw
from agentsm_fn.providers.events import TextDelta, ToolCallArguments, ToolCallStarted
from agentsm_fn.server.agui.feed import EffectEnded, EffectStarted, Happening, MemoryAfter, Moved, Streamed
from agentsm_fn.server.agui.interrupts import answer_from, interrupt_for, interrupt_id, waiting_entry
from agentsm_fn.server.agui.redacting import RedactedText
from agentsm_fn.server.agui.request import read_request
from agentsm_fn.server.agui.state import Shown, public_state, state_patch
from agentsm_fn.server.agui.translate import Translator
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.tools.spec import ToolDef
from verification.kit import json_objects

run_ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,40}", fullmatch=True)
ASK = AskHuman(HumanApprovalRequest(step=1, tool_call=ToolCall("c1", "pay", {"eur": 5}), reason="policy"))


@given(run_ids, st.integers(min_value=0, max_value=10**12))
def test_an_interrupt_id_names_its_stored_run_and_entry(run_id: str, seq: int) -> None:
    assert waiting_entry(interrupt_id(run_id, seq)) == (run_id, seq)


@given(st.text(max_size=20).filter(lambda t: "#" not in t))
def test_text_without_a_mark_names_no_interrupt(text: str) -> None:
    assert waiting_entry(text) is None


@given(json_objects(), json_objects())
def test_a_state_patch_turns_the_old_state_into_the_new(before: JsonObject, after: JsonObject) -> None:
    old, new = thaw(before), thaw(after)
    assert isinstance(old, dict) and isinstance(new, dict)
    assert jsonpatch.apply_patch(old, state_patch(old, new)) == new
    assert state_patch(new, new) == []


@attrs.frozen
class Box:
    count: int
    tags: tuple[str, ...]
    note: str
    _secret: str = ""


boxes = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(0, 3)),
        st.one_of(st.none(), st.lists(st.sampled_from("abc"), max_size=3).map(tuple)),
        st.one_of(st.none(), st.text(max_size=3)),
        st.text(max_size=2),
    ),
    min_size=1,
    max_size=8,
)


@given(boxes)
def test_memories_shown_in_turn_are_their_public_state_and_patch_from_one_to_the_next(
    changes: list[tuple[int | None, tuple[str, ...] | None, str | None, str]],
) -> None:
    """A field kept (None: the same object) or changed: each state shown, and each patch, is right."""
    shown, memory = Shown(), Box(count=0, tags=(), note="", secret="")
    before = shown(memory)
    translator = Translator("r")
    translator.opening("A", before)
    client = thaw(before)
    for count, tags, note, secret in changes:
        memory = attrs.evolve(
            memory,
            count=memory.count if count is None else count,
            tags=memory.tags if tags is None else tags,
            note=memory.note if note is None else note,
            secret=secret,
        )
        after = shown(memory)
        assert after == public_state(memory)
        patch = state_patch(before, after)
        assert jsonpatch.apply_patch(thaw(before), patch) == thaw(after)
        assert (patch == []) is (after == before)
        events = translator.feed(MemoryAfter(1, memory))  # a delta only on a change
        assert [e.type.value for e in events] == ([] if after == before else ["STATE_DELTA"])
        for event in events:
            client = jsonpatch.apply_patch(client, event.model_dump(mode="json")["delta"])
        assert client == thaw(after)
        before = after


def test_public_state_leaves_out_private_fields_and_redacts_credentials(monkeypatch: object) -> None:
    memory = AgentMemory.new("use key sk-abcdefghijklmnopqrstuvwx to pay")
    shown = public_state(memory)
    assert shown["task"] == "use key [redacted] to pay"
    assert shown["step"] == 0 and shown["history"] == []


def test_a_memory_shows_the_same_whether_its_tools_were_used_before_or_not() -> None:
    tool = ToolDef(name="lookup", description="Look a key up", parameters={"type": "object"})
    memory = attrs.evolve(AgentMemory.new("look it up"), tools=(tool,))
    before = public_state(memory)
    assert tool.spec.name == "lookup"  # a planning call asks for the spec (and it is cached)
    assert tool.argument_problems({}) is None  # a call's arguments are checked (the validator is cached)
    assert public_state(memory) == before
    tools = before["tools"]
    assert isinstance(tools, list) and isinstance(tools[0], dict)
    assert set(tools[0]) == {
        "name",
        "description",
        "parameters",
        "needs_approval",
        "timeout",
        "retry_safe",
        "agent",
        "hands_off",
    }


@given(st.sampled_from(["resolved", "cancelled"]), st.booleans(), st.text(max_size=10), st.booleans())
def test_an_answer_is_what_the_approval_accepts(
    status: str, approved: bool, reason: str, changed: bool
) -> None:
    payload: dict[str, object] = {"approved": approved, "reason": reason}
    if changed:
        payload["arguments"] = {"eur": 3}
    entry = ResumeEntry(interrupt_id="r#1", status=status, payload=payload)  # type: ignore[arg-type]  # a str from the strategy
    decision = answer_from(entry, ASK, "resume[0]").unwrap()
    assert ASK.accepts(decision)
    if status == "cancelled" or not approved:
        assert isinstance(decision, Rejected)
    elif changed:
        assert decision == Modified({"eur": 3})
    else:
        assert decision == Approved()


def test_an_approval_interrupt_names_the_tool_call_and_the_answer_it_expects() -> None:
    found = interrupt_for("r", 4, ASK, ASK.summary())
    assert (found.id, found.reason, found.tool_call_id) == ("r#4", "tool_approval", "c1")
    assert found.response_schema is not None and "arguments" in found.response_schema["properties"]
    other = interrupt_for("r", 4, None, "Charge 5 EUR")
    assert other.reason == "answer" and other.message == "Charge 5 EUR"


def test_the_conversation_becomes_our_messages() -> None:
    given_input = RunAgentInput.model_validate(
        {
            "threadId": "t",
            "runId": "r",
            "messages": [
                {"id": "1", "role": "developer", "content": "be brief"},
                {
                    "id": "2",
                    "role": "user",
                    "content": [{"type": "text", "text": "hi "}, {"type": "text", "text": "there"}],
                },
                {
                    "id": "3",
                    "role": "assistant",
                    "toolCalls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
                    ],
                },
                {"id": "4", "role": "tool", "toolCallId": "c", "content": "done"},
                {"id": "5", "role": "reasoning", "content": "thinking"},
            ],
        }
    )
    request = read_request(given_input).unwrap()
    assert request.messages[1:] == (
        UserMessage("hi there"),
        AssistantMessage("", (ToolCall("c", "f", {"a": 1}),)),
        ToolResultMessage("c", "f", "done"),
    )
    assert request.last_user_text == "hi there"


LOOKUP = ToolCall("c1", "lookup", {"city": "Oslo"})
CALL = LlmCall(LlmRequest(model="m", messages=(UserMessage("weather?"),)))


def test_a_reply_becomes_a_message_and_its_tool_calls_each_announced_once() -> None:
    translator = Translator("r")
    reply = LlmReply(content="Let me look.", tool_calls=(LOOKUP,))
    translator.feed(EffectStarted(CALL))
    types = [e.type.value for e in translator.feed(EffectEnded(CALL, reply))]
    assert types == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
    ]
    translator.feed(EffectStarted(CALL))
    assert (
        translator.feed(EffectEnded(CALL, LlmReply(tool_calls=reply.tool_calls))) == []
    )  # announced already
    assert [e.type.value for e in translator.feed(Moved("A", "B"))] == ["STEP_FINISHED", "STEP_STARTED"]


def _joined(events: list[BaseEvent], kind: str) -> str:
    return "".join(getattr(e, "delta", "") for e in events if e.type.value == kind)


@given(
    st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6), st.integers(min_value=1, max_value=4)
)
def test_streamed_deltas_become_one_message_and_one_tool_call_in_order(pieces: list[str], cut: int) -> None:
    translator = Translator("r")
    arguments = '{"city": "Oslo"}'
    happenings: list[Happening] = [
        EffectStarted(CALL),
        *(Streamed(TextDelta(piece)) for piece in pieces),
        Streamed(ToolCallStarted(0, "c1", "lookup")),
        Streamed(ToolCallArguments(0, arguments[:cut])),
        Streamed(ToolCallArguments(0, arguments[cut:])),
        EffectEnded(CALL, LlmReply(content="".join(pieces), tool_calls=(LOOKUP,))),
    ]
    events = [event for happening in happenings for event in translator.feed(happening)]
    types = [e.type.value for e in events]
    text_end = types.index("TEXT_MESSAGE_END")
    assert types[0] == "TEXT_MESSAGE_START" and set(types[1:text_end]) == {"TEXT_MESSAGE_CONTENT"}
    assert types[text_end + 1] == "TOOL_CALL_START" and types[-1] == "TOOL_CALL_END"
    assert set(types[text_end + 2 : -1]) == {"TOOL_CALL_ARGS"}
    assert _joined(events, "TEXT_MESSAGE_CONTENT") == redact_credentials("".join(pieces))
    assert all(getattr(e, "delta", "x") for e in events)  # no empty fragment is sent
    assert _joined(events, "TOOL_CALL_ARGS") == arguments
    assert {getattr(e, "message_id", None) for e in events[: text_end + 1]} == {"r:m1"}
    assert getattr(events[text_end + 1], "parent_message_id", None) == "r:m1"


def test_a_failed_llm_call_closes_the_message_it_streamed() -> None:
    translator = Translator("r")
    translator.feed(EffectStarted(CALL))
    assert [e.type.value for e in translator.feed(Streamed(TextDelta("Hal")))] == []  # a word is held back
    assert [e.type.value for e in translator.feed(Streamed(TextDelta("lo there")))] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
    ]
    failed = LlmFailure(kind=LlmFailureKind.HTTP_STATUS, message="503", provider="p")
    ended = translator.feed(EffectEnded(CALL, failed))
    assert [(e.type.value, getattr(e, "delta", "")) for e in ended] == [
        ("TEXT_MESSAGE_CONTENT", "there"),
        ("TEXT_MESSAGE_END", ""),
    ]


KEY = "sk-" + "abcdefghijklmnopqrstuvwxyz0123"
words = st.sampled_from(["the", "key", "is", KEY, "Bearer", "tok3n-0123456789abcdef", "ok.", "\n"])


@given(st.lists(words, max_size=12), st.lists(st.integers(min_value=0, max_value=200), max_size=6))
def test_a_credential_split_across_deltas_is_redacted(chosen: list[str], cuts: list[int]) -> None:
    text = " ".join(chosen)
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    stream = RedactedText()
    out = "".join(stream.add(text[a:b]) for a, b in itertools.pairwise(points)) + stream.end()
    assert out == redact_credentials(text)
    assert KEY not in out and "Bearer tok3n" not in out


def test_a_guardrails_check_is_no_message_its_guarding_state_is_the_step() -> None:
    translator = Translator("r1")
    check = LlmCall(LlmRequest(model="", messages=()), purpose="guardrail polite")
    fed: list[Happening] = [
        Moved("Idle", "GuardingInput"),
        EffectStarted(check),
        Streamed(TextDelta('{"tripped": false')),
        EffectEnded(check, LlmReply(content='{"tripped": false, "reason": "ok"}')),
        Moved("GuardingInput", "Planning"),
    ]
    kinds = [e.type.value for happening in fed for e in translator.feed(happening)]
    assert kinds == ["STEP_FINISHED", "STEP_STARTED", "STEP_FINISHED", "STEP_STARTED"]
