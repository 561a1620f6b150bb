"""Planted bugs for the kit's tests: handlers of the built-in agents, each with one defect."""

from __future__ import annotations

from typing import Literal

import attrs
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State
from agentsm_fn.agents.react.observing import observe
from agentsm_fn.agents.react.planning import Decided, plan, receive_plan
from agentsm_fn.agents.react.prompt import compression_request
from agentsm_fn.agents.react.reflecting import receive_summary, reflect
from agentsm_fn.core import Fault, Perform, effectful, perform, pure
from agentsm_fn.llm import LlmCall, LlmOutcome, LlmReply, ToolCall
from verification.kit import Outcomes
from verification.kit.react_strategies import react_llm_outcomes, react_memories, react_outcomes


def observe_forgetting_the_tool_call(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.Continue, Event.NeedsReflection], AgentMemory], Fault]:
    """Observing as written, except that it leaves ``current_tool_call`` set (the seeded bug)."""
    return observe(memory).map(
        lambda out: (out[0], attrs.evolve(out[1], current_tool_call=memory.current_tool_call))
    )


FORGETFUL_REACT = REACT_MACHINE.extend(handlers={State.Observing: pure(observe_forgetting_the_tool_call)})
"""The ReAct machine with the seeded bug in Observing."""


def _restore(
    result: Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault], memory: AgentMemory
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Put the real blacklist, tools and config back into a decision's memory."""

    def back(
        value: tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory],
    ) -> tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory]:
        if isinstance(value, Perform):
            return value
        event, after = value
        return event, attrs.evolve(
            after, blacklisted_tools=memory.blacklisted_tools, tools=memory.tools, config=memory.config
        )

    return result.map(back)


def plan_ignoring_the_blacklist(
    memory: AgentMemory, outcome: LlmOutcome
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Planning that decides as if no tool were blacklisted."""
    return _restore(receive_plan(attrs.evolve(memory, blacklisted_tools=frozenset()), outcome), memory)


def plan_skipping_approval(
    memory: AgentMemory, outcome: LlmOutcome
) -> Result[tuple[Decided, AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Planning that decides as if no tool needed a human's approval."""
    lax = attrs.evolve(
        memory,
        tools=tuple(attrs.evolve(t, needs_approval=False) for t in memory.tools),
        config=attrs.evolve(memory.config, approve_all_tools=False),
    )
    return _restore(receive_plan(lax, outcome), memory)


IGNORING_BLACKLIST = REACT_MACHINE.extend(
    handlers={State.Planning: effectful(plan, plan_ignoring_the_blacklist, failure_event=Event.FatalError)}
)
"""The ReAct machine whose Planning lets blacklisted tools through."""

SKIPPING_APPROVAL = REACT_MACHINE.extend(
    handlers={State.Planning: effectful(plan, plan_skipping_approval, failure_event=Event.FatalError)}
)
"""The ReAct machine whose Planning never asks for approval."""


def banning_shell() -> st.SearchStrategy[AgentMemory]:
    """Memories that ban "shell" (a known tool with an argument-free schema) and allow a few steps."""
    return react_memories().map(
        lambda m: attrs.evolve(
            m,
            blacklisted_tools={"shell"},
            config=attrs.evolve(m.config, max_steps=max(m.config.max_steps, 3)),
        )
    )


def risky_outcomes() -> Outcomes:
    """The ReAct outcomes, with a model that often asks for exactly the tools the policies are about."""
    risky = st.sampled_from(
        [LlmReply(tool_calls=(ToolCall("call_1", name, {"q": "x"}),)) for name in ("shell", "delete_file")]
    )
    return react_outcomes().on(LlmCall, lambda call: st.one_of(react_llm_outcomes(call), risky))


def reflect_ignoring_the_budget(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.ReflectDone], AgentMemory] | Perform[LlmOutcome, AgentMemory], Fault]:
    """Reflecting as it was before the kit caught it: it calls the LLM even with the budget spent."""
    if not memory.history:
        return reflect(memory)
    return perform(LlmCall(compression_request(memory), purpose="reflect"), memory)


OVERSPENDING_REACT = REACT_MACHINE.extend(
    handlers={State.Reflecting: effectful(reflect_ignoring_the_budget, receive_summary, failure_event=None)}
)
"""The ReAct machine whose Reflecting compresses history after the token budget is spent."""
