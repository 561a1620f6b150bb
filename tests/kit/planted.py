"""Planted bugs for the kit's tests: handlers of the built-in agents, each with one defect."""

from __future__ import annotations

from typing import Literal

import attrs
from returns.result import Result

from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State
from agentsm_fn.agents.react.observing import observe
from agentsm_fn.core import Fault, pure


def observe_forgetting_the_tool_call(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.Continue, Event.NeedsReflection], AgentMemory], Fault]:
    """Observing as written, except that it leaves ``current_tool_call`` set (the seeded bug)."""
    return observe(memory).map(
        lambda out: (out[0], attrs.evolve(out[1], current_tool_call=memory.current_tool_call))
    )


FORGETFUL_REACT = REACT_MACHINE.extend(handlers={State.Observing: pure(observe_forgetting_the_tool_call)})
"""The ReAct machine with the seeded bug in Observing."""
