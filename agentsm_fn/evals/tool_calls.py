"""Which tools a run called, read from the effects its steps asked for (the built-in agents' tool effects).

A ReAct agent runs a tool as a ``RunTool`` effect (several at once as a ``RunToolBatch``), a
plan-and-execute agent as ``RunTools``; an effect of an embedded machine is looked through
(``underlying``). Another machine's effects are not tool calls here: grade them with a run
property over :func:`~verification.kit.requested` or a custom check.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentsm_fn.agents.plan_execute import RunTools
from agentsm_fn.agents.react import RunTool, RunToolBatch
from agentsm_fn.core.effects import Effect

__all__ = ["tools_called"]


def tools_called(effects: Iterable[Effect[object]]) -> tuple[str, ...]:
    """The names of the tools ``effects`` ran, in order (once per call).

    Example:
        >>> from agentsm_fn.llm import ToolCall
        >>> tools_called([RunTool(ToolCall("c1", "search", {})), RunTools((ToolCall("c2", "add", {}),))])
        ('search', 'add')
    """
    names: list[str] = []
    for wrapped in effects:
        effect = wrapped.underlying()
        if isinstance(effect, RunTool):
            names.append(effect.call.name)
        elif isinstance(effect, RunToolBatch):
            names.extend(run.call.name for run in effect.runs)
        elif isinstance(effect, RunTools):
            names.extend(call.name for call in effect.calls)
    return tuple(names)
