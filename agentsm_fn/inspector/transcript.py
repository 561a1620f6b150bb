"""A built-in agent's run as a chat transcript: the task, the model's replies, tool results, approvals.

Read from the run's initial memory (the task) and its journal's outcomes, in order: an
``LlmReply`` is the assistant's message with its tool calls, a tool result (either
agent's, one or a batch) answers a call, ``Approved`` / ``Rejected`` / ``Modified`` is a
person's decision, and a failed effect says what failed. Every text is redacted
(:func:`~agentsm_fn.inspector.plain.plain`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from agentsm_fn.agents.plan_execute import PlanExecuteMemory, PlanExecuteToolResult, ToolBatch
from agentsm_fn.agents.react import (
    AgentMemory,
    Approved,
    Modified,
    ReactToolResult,
    Rejected,
    ToolBatchResult,
)
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.inspector.plain import plain
from agentsm_fn.llm import LlmFailure, LlmReply
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.credentials import credential_redactor

__all__ = ["Line", "transcript"]

Line = dict[str, JsonValue]
"""One line: ``role`` (user, assistant, tool, approval, failure), ``text``, the journal ``seq``, and
``calls`` (an assistant's tool calls: id, name, arguments) or ``ok`` (a tool result)."""


def _tool(seq: int, call_id: str, name: str, ok: bool, text: JsonValue) -> Line:
    return {"role": "tool", "seq": seq, "call": call_id, "name": name, "ok": ok, "text": text}


def _lines(seq: int, outcome: object, redact: Callable[[str], str]) -> Iterable[Line]:
    def plain_(value: object) -> JsonValue:
        return plain(value, redact)

    match outcome:
        case LlmReply(content=text, tool_calls=calls):
            shown = [{"id": c.id, "name": c.name, "arguments": plain_(c.arguments)} for c in calls]
            yield {"role": "assistant", "seq": seq, "text": plain_(text), "calls": shown}
        case ReactToolResult(call_id=call_id, name=name, ok=ok, output=text):
            yield _tool(seq, call_id, name, ok, plain_(text))
        case PlanExecuteToolResult(call_id=call_id, name=name, content=text, is_error=failed):
            yield _tool(seq, call_id, name, not failed, plain_(text))
        case ToolBatchResult(results=results) | ToolBatch(results=results):
            for result in results:
                yield from _lines(seq, result, redact)
        case Approved():
            yield {"role": "approval", "seq": seq, "text": "approved"}
        case Rejected(reason=reason):
            yield {
                "role": "approval",
                "seq": seq,
                "text": plain_(f"rejected: {reason}" if reason else "rejected"),
            }
        case Modified(arguments=arguments):
            yield {
                "role": "approval",
                "seq": seq,
                "text": "approved with new arguments",
                "arguments": plain_(arguments),
            }
        case LlmFailure() | EffectFailure():
            yield {"role": "failure", "seq": seq, "text": plain_(outcome.describe())}


def transcript(
    memory: object, outcomes: Sequence[tuple[int, object]], redact: Callable[[str], str] | None = None
) -> list[Line] | None:
    """The conversation of a built-in agent's run (None for any other machine's memory).

    ``memory`` is the run's initial memory, ``outcomes`` its journal's ``(seq, outcome)`` pairs.

    Example:
        >>> from agentsm_fn.agents.react import AgentMemory
        >>> from agentsm_fn.llm import LlmReply
        >>> lines = transcript(AgentMemory(task="Add 2 and 3"), [(0, LlmReply(content="5"))])
        >>> [(line["role"], line["text"]) for line in lines]
        [('user', 'Add 2 and 3'), ('assistant', '5')]
        >>> transcript(42, []) is None
        True
    """
    if isinstance(memory, AgentMemory):
        opening = memory.task
    elif isinstance(memory, PlanExecuteMemory):
        opening = memory.input
    else:
        return None
    redact = redact or credential_redactor()
    lines: list[Line] = [{"role": "user", "seq": -1, "text": plain(opening, redact)}]
    for seq, outcome in outcomes:
        lines.extend(_lines(seq, outcome, redact))
    return lines
