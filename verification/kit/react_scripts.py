"""Hand-picked starts of the ReAct agent for the deterministic covering-path suite.

:func:`~verification.kit.scripts.covering_cases` scripts the agent's covering paths from
these memories (:func:`react_script_memories`) and, for the rows that guard against a
corrupt memory, from :func:`react_script_entries`. The generated ones are in
:mod:`verification.kit.react_strategies`.
"""

from __future__ import annotations

import attrs

from agentsm_fn.agents.guardrails import OnTrip
from agentsm_fn.agents.output import OutputProblem, RejectedOutput
from agentsm_fn.agents.react import AgentConfig, AgentMemory, State, TokenBudget
from agentsm_fn.llm import AssistantMessage, Conversation, ThreadBudget, UserMessage
from verification.kit.react_replies import guardrails_at
from verification.kit.react_strategies import ANSWER_OUTPUT, TOOL_POOL, _memory

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
    plain = tuple(_memory("What is 2 + 2?", c, list(TOOL_POOL), frozenset({"shell"}), None) for c in configs)
    typed = tuple(  # a typed result with no retry, and with one
        _memory(
            "Capital of France?", attrs.evolve(base, max_output_retries=n), [], frozenset(), ANSWER_OUTPUT
        )
        for n in (0, 1)
    )
    guarded = tuple(  # LLM guardrails at every stage: ask a human, stop (a refusal: a human rejects)
        attrs.evolve(plain[1], guardrails=guardrails_at(action)) for action in (OnTrip.ASK_HUMAN, OnTrip.STOP)
    )
    # The same starts as a later turn of a thread whose earlier turn is over its context budget.
    earlier = Conversation().then([UserMessage("My name is Ada."), AssistantMessage("Hello, Ada! " * 20)])
    later = (
        m.with_config(attrs.evolve(m.config, thread=ThreadBudget(context=20))).start_turn(earlier, m.task)
        for m in (*plain, *typed, guarded[0])
    )
    return (*plain, *typed, *guarded, *later)


def react_script_entries() -> tuple[tuple[State, AgentMemory], ...]:
    """Corrupt-memory starts in each tool state, for the rows that guard against them; and typed starts.

    A typed result's rows cannot share a run with ``AnswerTooShort`` (a typed result has no
    minimum length), so they are scripted alone: from Planning with a memory that asks for a
    typed result (no retry), and from Correcting with one reply rejected (a retry left, or none).

    Example:
        >>> [s.name for s, _ in react_script_entries()]
        ['Acting', 'ParallelActing', 'WaitingForHuman', 'Planning', 'Correcting', 'Correcting']
    """
    memories = react_script_memories()
    corrupt = tuple((s, memories[1]) for s in (State.Acting, State.ParallelActing, State.WaitingForHuman))
    rejected = RejectedOutput(
        step=1, reply="{}", problems=[OutputProblem(path="$", message="'answer' is required")]
    )
    typed = memories[-1].evolve(step=1, rejected_outputs=(rejected,))
    spent = typed.with_config(attrs.evolve(typed.config, budget=TokenBudget(total=0)))  # then BudgetExceeded
    correcting = (
        (State.Correcting, spent),
        (State.Correcting, typed.evolve(output_retries=1)),
    )  # retry, or not
    return (*corrupt, (State.Planning, memories[-2]), *correcting)
