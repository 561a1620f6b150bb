"""Agents as tools: a call of a tool that names a durable agent runs that agent as a child run.

A :class:`~agentsm_fn.tools.spec.ToolDef` whose ``agent`` names a durable program (``module:attribute``)
is offered to the model like any tool; calling it requests a :class:`~agentsm_fn.teams.ChildRun` of
that program, started as a new turn (:class:`~agentsm_fn.teams.StartTurn`) whose message is the call's
``input``. The child's outcome becomes the call's result: its final answer (or typed result, as JSON)
on success, an error observation when it failed or was cancelled, never a crash.

A handoff (:func:`handoff_tool`, ``transfer_to_<agent>``) is the same child run, but the receiving
agent's turn starts from the conversation so far as an input filter keeps it (the earlier turns'
messages; the user's current message is always its message), and its answer is the run's answer
(``Acting --HandedOff--> Done``). A failed or cancelled handoff is an error observation: the agent
goes on itself. In a batch of calls (ParallelActing) a handoff is run as an agent tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

import attrs
from pyrsistent import PMap, PVector, pvector, thaw

from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ReactToolResult
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.messages import Message, SystemMessage, ToolCall
from agentsm_fn.teams.team import keep_everything
from agentsm_fn.teams.turns import StartTurn
from agentsm_fn.teams.values import ChildCancelled, ChildFailed, ChildOutcome, ChildRun
from agentsm_fn.tools.spec import ToolDef

__all__ = [
    "AGENT_INPUT",
    "InputFilter",
    "agent_run",
    "agent_tool",
    "child_result",
    "child_text",
    "handed_thread",
    "handoff_tool",
]

InputFilter = Callable[[tuple[Message, ...]], tuple[Message, ...]]
"""What a receiving agent sees of the earlier conversation (``keep_everything``: all of it)."""

AGENT_INPUT = "input"
"""The argument of an agent tool that is the agent's message."""


def agent_tool(name: str, description: str, program: str) -> ToolDef:
    """The definition of a tool that runs the durable agent ``program`` on its ``input``.

    Example:
        >>> agent_tool("ask_refunds", "Ask the refunds agent", "shop:REFUNDS").parameters["required"]
        pvector(['input'])
    """
    schema = {
        "type": "object",
        "properties": {AGENT_INPUT: {"type": "string", "description": "What to ask the agent."}},
        "required": [AGENT_INPUT],
    }
    return ToolDef(name=name, description=description, parameters=schema, agent=program)


def handoff_tool(target: str, description: str, program: str) -> ToolDef:
    """The ``transfer_to_<target>`` tool: a call hands the conversation to the durable agent ``program``.

    Example:
        >>> handoff_tool("refunds", "Refunds and returns", "shop:REFUNDS").name
        'transfer_to_refunds'
    """
    said = description or f"Hand the conversation to the {target} agent."
    return ToolDef(name=f"transfer_to_{target}", description=said, agent=program, hands_off=True)


def handed_thread(memory: AgentMemory, keep: InputFilter = keep_everything) -> Conversation:
    """What the receiving agent of a handoff sees of the earlier turns: what ``keep`` keeps, nothing else.

    The earlier turns' summary is kept only with ``keep_everything`` (it may tell what a filter drops);
    the turns taken and the tokens spent are the thread's (they tell nothing a filter drops), so the
    receiving agent's turns go on numbering the thread's.

    Example:
        >>> from agentsm_fn.llm.messages import AssistantMessage, UserMessage
        >>> thread = Conversation().then([UserMessage("I am Ada."), AssistantMessage("Hello, Ada!")])
        >>> m = AgentMemory.new("Refund A-17").evolve(conversation=thread)
        >>> [x.content for x in handed_thread(m).messages], handed_thread(m, lambda ms: ()).messages
        (['I am Ada.', 'Hello, Ada!'], pvector([]))
    """
    earlier = memory.conversation
    kept = tuple(m for m in keep(tuple(earlier.messages)) if not isinstance(m, SystemMessage))
    summary, summarized = (earlier.summary, earlier.summarized) if keep is keep_everything else ("", 0)
    return Conversation(
        messages=pvector(kept),
        summary=summary,
        summarized=summarized,
        usage=earlier.usage,
        turns=earlier.turns,
    )


def agent_run(
    memory: AgentMemory, call: ToolCall, filters: Mapping[str, InputFilter] | None = None
) -> ChildRun | None:
    """The child run a call asks for when its tool is an agent (None: an ordinary tool).

    Example:
        >>> m = AgentMemory.new("t").with_tools([agent_tool("ask", "Ask", "shop:REFUNDS")])
        >>> run = agent_run(m, ToolCall("c1", "ask", {"input": "Refund A-17"}))
        >>> run.program, run.memory.message
        ('shop:REFUNDS', 'Refund A-17')
    """
    definition = memory.tool(call.name)
    if definition is None or definition.agent is None:
        return None
    if definition.hands_off:
        keep = keep_everything if filters is None else filters.get(call.name, keep_everything)
        start = StartTurn(message=memory.task, thread=handed_thread(memory, keep))
        return ChildRun(program=definition.agent, memory=start)
    said = call.arguments.get(AGENT_INPUT)
    message = said if isinstance(said, str) else json.dumps(thaw(call.arguments), sort_keys=True)
    return ChildRun(program=definition.agent, memory=StartTurn(message=message))


def _plain(value: object) -> object:
    if attrs.has(type(value)):
        return {k: _plain(v) for k, v in attrs.asdict(value, recurse=False).items()}  # type: ignore[arg-type]  # attrs.has proved it
    if isinstance(value, PMap | PVector):
        return _plain(thaw(value))
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def child_text(result: object) -> str:
    """A child agent's result as text: its answer, or its typed result as JSON.

    Example:
        >>> child_text("Refunded."), child_text({"amount": 6})
        ('Refunded.', '{"amount": 6}')
    """
    if isinstance(result, AgentMemory):
        result = result.final_answer if result.result is None else result.result
    if isinstance(result, str):
        return result
    return json.dumps(_plain(result), sort_keys=True, default=str)


def child_result(call: ToolCall, outcome: ChildOutcome) -> ReactToolResult:
    """The call's result from how its agent's run ended: its answer, or an error observation.

    Example:
        >>> from agentsm_fn.teams import ChildFinished
        >>> call = ToolCall("c1", "ask", {"input": "Refund A-17"})
        >>> done = ChildFinished(run_id="p.c2", program="shop:REFUNDS", state="Done", result="Refunded.")
        >>> child_result(call, done).observation
        'SUCCESS: Refunded.'
        >>> child_result(call, ChildCancelled(run_id="p.c2", program="shop:REFUNDS")).observation
        'ERROR: ChildCancelled: shop:REFUNDS p.c2 was cancelled'
    """
    if isinstance(outcome, ChildFailed | ChildCancelled):
        return ReactToolResult.failure(call.id, call.name, type(outcome).__name__, outcome.describe())
    return ReactToolResult(call_id=call.id, name=call.name, ok=True, output=child_text(outcome.result))
