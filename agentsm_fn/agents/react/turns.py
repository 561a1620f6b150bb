"""A ReAct turn's messages: one step's tool calls and results as the model saw them, and a whole turn's.

History is sent as real tool-call turns: one :class:`AssistantMessage` carrying the step's
tool calls, then one :class:`ToolResultMessage` per call. The planning request sends them
(``prompt``), and a thread keeps them (``thread``): both build them here, below the memory,
so the memory can say its thread without importing what imports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from typing import Protocol, TypeAlias

from agentsm_fn.llm.conversation import ConversationMessage
from agentsm_fn.llm.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage

__all__ = ["WORK_SUMMARY_PREFIX", "ToolEntry", "ToolTurn", "tool_turns", "turn_messages"]

WORK_SUMMARY_PREFIX = "Summary of the work so far: "
"""How a turn's compressed tool work is kept in the thread: one assistant message."""


class ToolEntry(Protocol):
    """What a step's turns are built from: a history entry (``memory.HistoryEntry``)."""

    @property
    def step(self) -> int: ...

    @property
    def tool(self) -> ToolCall: ...

    @property
    def observation(self) -> str: ...

    @property
    def success(self) -> bool: ...

    @property
    def is_summary(self) -> bool: ...


def _call_id(call: ToolCall, step: int, index: int) -> str:
    return call.id or f"call_{step}_{index}"


ToolTurn: TypeAlias = AssistantMessage | ToolResultMessage


def _build_turns(entries: tuple[ToolEntry, ...]) -> tuple[ToolTurn, ...]:
    step = entries[0].step
    calls = tuple(
        e.tool if e.tool.id else ToolCall(_call_id(e.tool, step, i), e.tool.name, e.tool.arguments)
        for i, e in enumerate(entries)
    )
    turns: list[ToolTurn] = [AssistantMessage(tool_calls=calls)]
    for call, entry in zip(calls, entries, strict=True):
        turns.append(ToolResultMessage(call.id, call.name, entry.observation, is_error=not entry.success))
    return tuple(turns)


# Every planning call re-sends the whole history, whose entries are the same (frozen) objects
# from step to step: a step's turns are built once and found again by the entries' identity
# (no hashing of entries or tool arguments), and the codecs, which memoize each message's wire
# form, then meet the same message objects again. The memo holds the entries it was keyed by,
# so their ids cannot be reused while they are in it; it is emptied when it grows too big.
_TURNS: dict[tuple[int, ...], tuple[tuple[ToolEntry, ...], tuple[ToolTurn, ...]]] = {}
_TURNS_LIMIT = 4096


def tool_turns(entries: tuple[ToolEntry, ...]) -> tuple[ToolTurn, ...]:
    """One step's entries as the model saw them: the assistant's tool calls, then one result per call.

    Example:
        >>> from agentsm_fn.agents.react.memory import HistoryEntry
        >>> e = HistoryEntry(step=1, tool=ToolCall("", "search", {}), observation="SUCCESS: x", success=True)
        >>> [type(m).__name__ for m in tool_turns((e,))], tool_turns((e,))[1].tool_call_id
        (['AssistantMessage', 'ToolResultMessage'], 'call_1_0')
    """
    key = tuple(map(id, entries))
    hit = _TURNS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], entries, strict=True)):
        return hit[1]
    turns = _build_turns(entries)
    if len(_TURNS) >= _TURNS_LIMIT:
        _TURNS.clear()
    _TURNS[key] = (entries, turns)
    return turns


def _step_of(entry: ToolEntry) -> int:
    return entry.step


def turn_messages(
    task: str, history: Iterable[ToolEntry], answer: str | None
) -> tuple[ConversationMessage, ...]:
    """The messages one turn adds to its thread: task, work summary, tool calls and results, answer.

    Example:
        >>> from agentsm_fn.agents.react.memory import HistoryEntry
        >>> e = HistoryEntry(step=1, tool=ToolCall("c1", "lookup", {}), observation="SUCCESS: Ada",
        ...                  success=True)
        >>> [type(m).__name__ for m in turn_messages("What is my name?", [e], "Ada.")]
        ['UserMessage', 'AssistantMessage', 'ToolResultMessage', 'AssistantMessage']
    """
    entries = tuple(history)
    messages: list[ConversationMessage] = [UserMessage(task)]
    summaries = [e.observation for e in entries if e.is_summary]
    if summaries:
        messages.append(AssistantMessage(WORK_SUMMARY_PREFIX + "\n".join(summaries)))
    work = [e for e in entries if not e.is_summary]
    for _, group in groupby(work, key=_step_of):
        messages.extend(tool_turns(tuple(group)))
    if answer:
        messages.append(AssistantMessage(answer))
    return tuple(messages)
