"""The values of step agents: a durable agent a plan step may name, and a step of the plan it runs.

They are data (no machine, no function), so they travel in the run's memory with the config;
:mod:`agentsm_fn.agents.plan_execute.steps` runs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

__all__ = ["AgentStep", "StepAgent", "plan_step_items", "step_agent_problems", "step_agents"]


@attrs.frozen(kw_only=True)
class StepAgent:
    """A durable agent a plan step may name: its name (for the planner), what it does, its program.

    ``program`` is the agent's ``Durable`` name (``module:attribute``); ``context`` says whether the
    agent sees the user's request and the steps' results so far (else only its step).

    Example:
        >>> StepAgent(name="refunds", description="Refunds an order", program="shop:REFUNDS").context
        True
    """

    name: str
    description: str
    program: str
    context: bool = True


@attrs.frozen(kw_only=True)
class AgentStep:
    """A step of the plan that an agent runs: its place (from 0), its text and its agent.

    Example:
        >>> agent = StepAgent(name="r", description="", program="a:R")
        >>> AgentStep(index=1, text="Refund A-17", agent=agent).number
        2
    """

    index: int
    text: str
    agent: StepAgent

    @property
    def number(self) -> int:
        """The step's number as the executor's prompt shows it (from 1)."""
        return self.index + 1


def step_agents(value: Iterable[StepAgent]) -> tuple[StepAgent, ...]:
    """``value`` as a tuple (the config's converter).

    Example:
        >>> step_agents([StepAgent(name="r", description="", program="a:R")])[0].name
        'r'
    """
    return tuple(value)


def step_agent_problems(agents: tuple[StepAgent, ...], tools: Iterable[str]) -> list[str]:
    """What is wrong with a config's step agents: a name twice or a tool's, a missing program.

    Example:
        >>> step_agent_problems((StepAgent(name="search", description="", program=""),), ["search"])
        ["step agent 'search' has the name of a tool", "step agent 'search' names no program"]
    """
    names = [agent.name for agent in agents]
    twice = sorted({n for n in names if names.count(n) > 1})
    problems = [f"step agent {n!r} is declared twice" for n in twice]
    problems += [f"step agent {n!r} has the name of a tool" for n in sorted(set(names) & set(tools))]
    return problems + [f"step agent {a.name!r} names no program" for a in agents if not a.program.strip()]


def plan_step_items(value: object) -> tuple[tuple[str, str | None], ...]:
    """A plan's ``initial_steps`` as (text, agent name or None): strings, and ``{step, agent}`` objects.

    Anything else is left out (the planner's schema refuses it first).

    Example:
        >>> plan_step_items(["look up A-17", {"step": "Refund A-17", "agent": "refunds"}, 3])
        (('look up A-17', None), ('Refund A-17', 'refunds'))
    """
    items: list[tuple[str, str | None]] = []
    for item in value if isinstance(value, list | tuple) else ():
        if isinstance(item, str):
            items.append((item, None))
        elif isinstance(item, Mapping) and isinstance(item.get("step"), str):
            agent = item.get("agent")
            items.append((str(item["step"]), agent if isinstance(agent, str) and agent else None))
    return tuple(items)
