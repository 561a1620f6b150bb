"""Neutral history to Anthropic Messages turns: top-level system, strictly alternating turns.

Rules the real API enforces (and no test peer does), applied here as pure code:

- system messages become the top-level ``system`` text, never a message;
- consecutive same-role turns are merged into one;
- a user turn that follows an assistant turn with ``tool_use`` blocks starts with
  exactly one ``tool_result`` per ``tool_use``, in the same order, before any text
  (a missing result is sent as an error result; a result with no matching
  ``tool_use`` is sent as plain text);
- empty text blocks are dropped (the API rejects them).
"""

from __future__ import annotations

from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import AssistantMessage, Message, SystemMessage, ToolResultMessage, UserMessage

__all__ = ["MISSING_RESULT", "build_turns"]

MISSING_RESULT = "no result was recorded for this tool call"
"""Content of the error result sent for a ``tool_use`` that has no result in the history."""

Block = dict[str, object]


def _blocks(message: Message) -> tuple[str, list[Block]]:
    if isinstance(message, UserMessage):
        return "user", [{"type": "text", "text": message.content}] if message.content else []
    if isinstance(message, ToolResultMessage):
        block: Block = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": message.content,
        }
        if message.is_error:
            block["is_error"] = True
        return "user", [block]
    assert isinstance(message, AssistantMessage)  # SystemMessage is filtered by the caller
    blocks: list[Block] = [{"type": "text", "text": message.content}] if message.content else []
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": thaw(c.arguments)}
        for c in message.tool_calls
    )
    return "assistant", blocks


def _tool_use_ids(blocks: list[Block]) -> list[str]:
    return [str(b["id"]) for b in blocks if b.get("type") == "tool_use"]


def _as_text(block: Block) -> Block:
    if block.get("type") != "tool_result":
        return block
    return {"type": "text", "text": f"Result of tool call {block['tool_use_id']}: {block['content']}"}


def _order_results(blocks: list[Block], use_ids: list[str]) -> list[Block]:
    results = {str(b["tool_use_id"]): b for b in blocks if b.get("type") == "tool_result"}
    first = [
        results.get(use_id)
        or {"type": "tool_result", "tool_use_id": use_id, "content": MISSING_RESULT, "is_error": True}
        for use_id in use_ids
    ]
    wanted = set(use_ids)
    rest = [
        _as_text(b)
        for b in blocks
        if not (b.get("type") == "tool_result" and str(b["tool_use_id"]) in wanted)
    ]
    return first + rest


def build_turns(messages: tuple[Message, ...]) -> tuple[str, list[dict[str, object]]]:
    """The ``system`` text and the alternating ``messages`` list for a Messages request.

    Example:
        >>> from agentsm_fn.llm import ToolCall
        >>> history = (
        ...     SystemMessage("Be brief."),
        ...     UserMessage("Weather?"),
        ...     AssistantMessage(tool_calls=(ToolCall("t1", "w", {}), ToolCall("t2", "w", {}))),
        ...     ToolResultMessage("t2", "w", "rain"),
        ...     ToolResultMessage("t1", "w", "sun"),
        ... )
        >>> system, turns = build_turns(history)
        >>> system, [t["role"] for t in turns], [b["tool_use_id"] for b in turns[2]["content"]]
        ('Be brief.', ['user', 'assistant', 'user'], ['t1', 't2'])
    """
    system = "\n\n".join(m.content for m in messages if isinstance(m, SystemMessage) and m.content)
    merged: list[tuple[str, list[Block]]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            continue
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if merged and merged[-1][0] == role:
            merged[-1][1].extend(blocks)
        else:
            merged.append((role, blocks))
    turns: list[dict[str, object]] = []
    previous_uses: list[str] = []
    for role, blocks in merged:
        content = blocks
        if role == "user":
            content = _order_results(blocks, previous_uses)
        previous_uses = _tool_use_ids(blocks) if role == "assistant" else []
        turns.append({"role": role, "content": content})
    if previous_uses:  # the history ends on tool calls with no results yet
        turns.append({"role": "user", "content": _order_results([], previous_uses)})
    return system, turns
