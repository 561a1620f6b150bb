"""Prompt building: the messages and tools of a planning call, and the compression prompt.

History is sent as real tool-call turns: one :class:`AssistantMessage` carrying the
step's tool calls, then one :class:`ToolResultMessage` per call (the seed sent
"Called tool ..." text instead). The task comes first, as the user turn that every
provider's tool protocol expects before any assistant turn; a compressed summary
is appended to it. A reply that was not a valid typed result follows the turns of
the steps before it, as the assistant's text and a user message naming every problem
(plain turns, the same for every provider and however the result was asked for).
In a thread, the earlier turns come before the task, in order, as they were (the
user's messages, the tool calls and results, the answers), after a summary of the
oldest ones once they were compressed.
"""

from __future__ import annotations

import json
from itertools import groupby

from agentsm_fn.agents.output.values import RejectedOutput
from agentsm_fn.agents.react.config import select_model
from agentsm_fn.agents.react.memory import AgentMemory, HistoryEntry
from agentsm_fn.agents.react.turns import tool_turns
from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.conversation import thread_compression_prompt
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolSpec,
    UserMessage,
)

__all__ = [
    "COMPRESSION_PROMPT",
    "build_messages",
    "compression_prompt",
    "compression_request",
    "thread_compression_request",
    "history_json",
    "offered_tool_specs",
    "planning_request",
]

COMPRESSION_PROMPT = (
    "Summarize the following tool call history into a single concise paragraph\n"
    "that preserves all key facts, findings, and data needed to continue the task.\n"
    "Task: {task}\n"
    "History: {history_json}"
)
"""The seed's exact compression prompt (000 section 4.11)."""


def _task_message(memory: AgentMemory) -> UserMessage:
    summaries = [e.observation for e in memory.history if e.is_summary]
    if not summaries:
        return UserMessage(memory.task)
    joined = "\n".join(summaries)
    return UserMessage(f"{memory.task}\n\nSummary of the work so far: {joined}")


def _step_of(entry: HistoryEntry) -> int:
    return entry.step


def build_messages(memory: AgentMemory) -> tuple[Message, ...]:
    """``[system?, earlier turns..., task (+ summary), (assistant tool calls, tool results)...]``.

    Example:
        >>> m = AgentMemory.new("2 + 2?").with_system_prompt("Be brief.")
        >>> [type(x).__name__ for x in build_messages(m)]
        ['SystemMessage', 'UserMessage']
    """
    messages: list[Message] = []
    if memory.system_prompt:
        messages.append(SystemMessage(memory.system_prompt))
    if memory.conversation.turns:
        messages.extend(memory.conversation.sent())
    messages.append(_task_message(memory))
    work = [e for e in memory.history if not e.is_summary]
    rejected = list(memory.rejected_outputs)
    for step, group in groupby(work, key=_step_of):
        while rejected and rejected[0].step < step:
            messages.extend(_correction(memory, rejected.pop(0)))
        messages.extend(tool_turns(tuple(group)))
    for last in rejected:
        messages.extend(_correction(memory, last))
    return tuple(messages)


def _correction(memory: AgentMemory, rejected: RejectedOutput) -> tuple[Message, ...]:
    name = memory.output.name if memory.output is not None else "answer"
    reply = rejected.reply if rejected.reply.strip() else "(an empty reply)"
    return (AssistantMessage(content=reply), UserMessage(rejected.feedback(name)))


def offered_tool_specs(memory: AgentMemory) -> tuple[ToolSpec, ...]:
    """The tools offered to the model: every known tool except blacklisted ones.

    Example:
        >>> from agentsm_fn.tools.spec import ToolDef
        >>> m = AgentMemory.new("t").with_tools([ToolDef(name="a", description=""),
        ...                                      ToolDef(name="b", description="")]).blacklist_tool("b")
        >>> [s.name for s in offered_tool_specs(m)]
        ['a']
    """
    return tuple(t.spec for t in memory.tools if t.name not in memory.blacklisted_tools)


def planning_request(memory: AgentMemory) -> LlmRequest:
    """The request Planning sends: routed model, messages, tools.

    Example:
        >>> planning_request(AgentMemory.new("t")).model
        ''
    """
    output = memory.output
    if output is None:
        return LlmRequest(
            model=select_model(memory.config, memory.task_type),
            messages=build_messages(memory),
            tools=offered_tool_specs(memory),
            want_confidence=memory.config.request_confidence,
        )
    return LlmRequest(
        model=select_model(memory.config, memory.task_type),
        messages=build_messages(memory),
        tools=offered_tool_specs(memory),
        want_confidence=memory.config.request_confidence,
        response_schema=output.schema,
        response_name=output.name,
        response_description=output.description,
    )


def history_json(memory: AgentMemory) -> str:
    """The history as a JSON array of ``{step, tool: {name, args}, observation, success}``.

    Example:
        >>> history_json(AgentMemory.new("t"))
        '[]'
    """
    entries = [
        {
            "step": e.step,
            "tool": {"name": e.tool.name, "args": thaw(e.tool.arguments)},
            "observation": e.observation,
            "success": e.success,
        }
        for e in memory.history
    ]
    return json.dumps(entries, ensure_ascii=False)


def compression_prompt(memory: AgentMemory) -> str:
    """The seed's compression prompt filled with the task and the history JSON.

    Example:
        >>> compression_prompt(AgentMemory.new("t")).splitlines()[-2:]
        ['Task: t', 'History: []']
    """
    return COMPRESSION_PROMPT.format(task=memory.task, history_json=history_json(memory))


def compression_request(memory: AgentMemory) -> LlmRequest:
    """The request Reflecting sends: the compression prompt alone, on the routed model.

    Example:
        >>> len(compression_request(AgentMemory.new("t")).messages)
        1
    """
    return LlmRequest(
        model=select_model(memory.config, memory.task_type),
        messages=(UserMessage(compression_prompt(memory)),),
    )


def thread_compression_request(memory: AgentMemory, budget: int) -> LlmRequest:
    """The request Reflecting sends for a thread over ``budget``: its older turns and last summary.

    Example:
        >>> from agentsm_fn.llm.conversation import Conversation
        >>> thread = Conversation().then([UserMessage("I am Ada.")]).then([UserMessage("Hi")])
        >>> request = thread_compression_request(AgentMemory.new("").start_turn(thread, "t"), 10)
        >>> request.messages[0].content.splitlines()[-1]
        'Conversation: [{"role": "user", "content": "I am Ada."}]'
    """
    prompt = thread_compression_prompt(memory.conversation, budget)
    return LlmRequest(model=select_model(memory.config, memory.task_type), messages=(UserMessage(prompt),))
