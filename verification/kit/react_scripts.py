"""Hand-picked starts of the ReAct agent for the deterministic covering-path suite.

:func:`~verification.kit.scripts.covering_cases` scripts the agent's covering paths from
these memories (:func:`react_script_memories`) and, for the rows that guard against a
corrupt memory, from :func:`react_script_entries`. The generated ones are in
:mod:`verification.kit.react_strategies`.
"""

from __future__ import annotations

import attrs

from agentsm_fn.agents.react import AgentConfig, AgentMemory, State, TokenBudget
from verification.kit.react_strategies import TOOL_POOL, _memory

__all__ = ["react_script_entries", "react_script_memories"]


def react_script_memories() -> tuple[AgentMemory, ...]:
    """Hand-picked start memories for the deterministic covering-path suite.

    Example:
        >>> len(react_script_memories()) >= 4
        True
    """
    base = AgentConfig(
        max_steps=10,
        max_retries=1,
        confidence_threshold=0.4,
        reflect_every_n_steps=0,
        min_answer_length=20,
        parallel_tools=True,
    )
    configs = (
        attrs.evolve(base, budget=TokenBudget(total=70)),
        base,
        attrs.evolve(base, reflect_every_n_steps=2),
        attrs.evolve(base, reflect_every_n_steps=1),
        attrs.evolve(base, max_steps=0),
        attrs.evolve(base, budget=TokenBudget(total=0)),
    )
    return tuple(_memory("What is 2 + 2?", c, list(TOOL_POOL), frozenset({"shell"})) for c in configs)


def react_script_entries() -> tuple[tuple[State, AgentMemory], ...]:
    """Corrupt-memory starts in each tool state, for the rows that guard against them.

    Example:
        >>> [s.name for s, _ in react_script_entries()]
        ['Acting', 'ParallelActing', 'WaitingForHuman']
    """
    memory = react_script_memories()[1]
    return tuple((s, memory) for s in (State.Acting, State.ParallelActing, State.WaitingForHuman))
