"""Small pure rules the handlers share: approval policy, argument checks, reflection timing."""

from __future__ import annotations

from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ReactToolResult
from agentsm_fn.llm.messages import ToolCall

__all__ = ["approval_reason", "precheck", "should_reflect"]


def approval_reason(memory: AgentMemory, call: ToolCall) -> str | None:
    """Why ``call`` needs a human's approval, or None if it may run at once.

    Example:
        >>> from agentsm_fn.agents.react.config import AgentConfig
        >>> m = AgentMemory.new("t")
        >>> approval_reason(m, ToolCall("c", "x", {})) is None
        True
        >>> approval_reason(m.with_config(AgentConfig(approve_all_tools=True)), ToolCall("c", "x", {}))
        'every tool call needs approval (config.approve_all_tools)'
    """
    definition = memory.tool(call.name)
    if definition is not None and definition.needs_approval:
        return f"tool '{call.name}' is marked needs_approval"
    if memory.config.approve_all_tools:
        return "every tool call needs approval (config.approve_all_tools)"
    return None


def precheck(memory: AgentMemory, call: ToolCall) -> ReactToolResult | None:
    """The failure a call meets before it runs (unknown tool, invalid arguments), or None.

    Example:
        >>> precheck(AgentMemory.new("t"), ToolCall("c1", "nope", {})).observation
        "ERROR: ToolNotFound: Tool 'nope' not found in registry"
    """
    definition = memory.tool(call.name)
    if definition is None:
        return ReactToolResult.failure(
            call.id, call.name, "ToolNotFound", f"Tool '{call.name}' not found in registry"
        )
    problems = definition.argument_problems(call.arguments)
    if problems is not None:
        return ReactToolResult.failure(
            call.id, call.name, "InvalidArguments", f"arguments do not match the schema: {problems}"
        )
    return None


def should_reflect(memory: AgentMemory) -> bool:
    """True when ``step`` is a positive multiple of ``reflect_every_n_steps`` (0 = never).

    Example:
        >>> import attrs
        >>> should_reflect(attrs.evolve(AgentMemory.new("t"), step=5)), should_reflect(AgentMemory.new("t"))
        (True, False)
    """
    every = memory.config.reflect_every_n_steps
    return every > 0 and memory.step > 0 and memory.step % every == 0
