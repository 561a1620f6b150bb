"""AgentMemory.evolve is attrs.evolve, only faster: same values, same conversions, same errors."""

from __future__ import annotations

from typing import cast

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import pvector

from agentsm_fn.agents.react.memory import AgentMemory, HistoryEntry, MemoryChanges
from agentsm_fn.agents.react.outcomes import ReactToolResult
from agentsm_fn.agents.react.prompt import build_messages
from agentsm_fn.llm import ToolCall, ToolResultMessage

CALL = ToolCall("c1", "lookup", {"key": "a"})
changes = st.fixed_dictionaries(
    {},
    optional={
        "step": st.integers(0, 9),
        "retry_count": st.integers(0, 3),
        "error": st.none() | st.text(max_size=5),
        "final_answer": st.none() | st.text(max_size=5),
        "current_tool_call": st.none() | st.just(CALL),
        "pending_tool_calls": st.lists(st.just(CALL), max_size=2),
        "parallel_results": st.lists(
            st.just(ReactToolResult(call_id="c1", name="lookup", ok=True, output="x")), max_size=2
        ),
        "history": st.lists(
            st.just(HistoryEntry(step=1, tool=CALL, observation="SUCCESS: x", success=True)), max_size=2
        ),
        "blacklisted_tools": st.lists(st.sampled_from(["a", "b"]), max_size=2),
        "refused_tools": st.lists(st.sampled_from(["a", "b"]), max_size=2),
    },
)


@given(changes)
def test_evolve_equals_attrs_evolve(change: dict[str, object]) -> None:
    memory = AgentMemory.new("task")
    typed = cast(MemoryChanges, change)  # Hypothesis draws the fields with their types
    fast = memory.evolve(**typed)
    slow = attrs.evolve(memory, **typed)
    assert fast == slow and repr(fast) == repr(slow)
    assert all(type(getattr(fast, f.name)) is type(getattr(slow, f.name)) for f in attrs.fields(AgentMemory))
    assert memory == AgentMemory.new("task")  # the original is untouched


def test_evolve_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError, match="no field 'stepp'"):
        AgentMemory.new("t").evolve(stepp=1)  # type: ignore[call-arg]  # the point of the test


def test_prompt_turns_are_reused_for_the_same_entries_and_built_for_new_ones() -> None:
    first = HistoryEntry(step=1, tool=CALL, observation="SUCCESS: x", success=True)
    memory = AgentMemory.new("task").evolve(history=pvector([first]))
    again = build_messages(memory)
    assert build_messages(memory)[1:] == again[1:]
    assert all(a is b for a, b in zip(build_messages(memory)[1:], again[1:], strict=True))
    other = HistoryEntry(step=1, tool=CALL, observation="ERROR: KeyError: y", success=False)
    changed = build_messages(memory.evolve(history=pvector([other])))
    result = changed[-1]
    assert (
        isinstance(result, ToolResultMessage) and result.is_error and result.content == "ERROR: KeyError: y"
    )


@attrs.frozen(kw_only=True)  # slotted, as attrs makes classes by default
class _SlottedMemory(AgentMemory):
    extra: int = 0


@attrs.frozen(kw_only=True, slots=False)
class _ConvertingMemory(AgentMemory):
    extra: int = attrs.field(default=0, converter=int)


@given(st.integers(0, 9), st.integers(-5, 5))
def test_a_subclass_evolves_as_attrs_evolve_does(step: int, extra: int) -> None:
    for memory in (_SlottedMemory(task="t", extra=extra), _ConvertingMemory(task="t", extra=extra)):
        evolved = memory.evolve(step=step)
        assert type(evolved) is type(memory) and evolved == attrs.evolve(memory, step=step)
        assert evolved.extra == extra and evolved.step == step
    changed = _ConvertingMemory(task="t").evolve(**cast(MemoryChanges, {"extra": str(extra)}))
    assert changed.extra == extra  # the subclass's own converter runs
