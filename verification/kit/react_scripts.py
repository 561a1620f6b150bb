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
from agentsm_fn.agents.react import REACT_MACHINE, AgentConfig, AgentMemory, Event, State, TokenBudget
from agentsm_fn.llm import AssistantMessage, Conversation, ThreadBudget, ToolCall, UserMessage
from verification.kit.react_replies import guardrails_at
from verification.kit.react_strategies import ANSWER_OUTPUT, TOOL_POOL, _memory

__all__ = [
    "GUARDING_STATES",
    "react_guard_entries",
    "react_guard_memories",
    "react_guard_rows",
    "react_script_entries",
    "react_script_memories",
]


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
    # The same starts as a later turn of a thread whose earlier turn is over its context budget.
    later = (_later_turn(m) for m in (*plain, *typed))
    return (*plain, *typed, *later)


def _later_turn(memory: AgentMemory) -> AgentMemory:
    earlier = Conversation().then([UserMessage("My name is Ada."), AssistantMessage("Hello, Ada! " * 20)])
    thread = attrs.evolve(memory.config, thread=ThreadBudget(context=20))
    return memory.with_config(thread).start_turn(earlier, memory.task)


GUARDING_STATES = frozenset(
    {
        State.GuardingInput,
        State.GuardingToolCalls,
        State.GuardingOutput,
        State.ReviewingInput,
        State.ReviewingToolCalls,
        State.ReviewingOutput,
        State.Refused,
    }
)
"""The states guardrails add (the guarding and reviewing states, and Refused)."""


def react_guard_rows() -> frozenset[tuple[State, Event, State]]:
    """The rows guardrails add: those into or out of a guarding or reviewing state (or Refused).

    Example:
        >>> len(react_guard_rows())
        21
    """
    return frozenset(
        (s, e, t) for (s, e), t in REACT_MACHINE.table.items() if s in GUARDING_STATES or t in GUARDING_STATES
    )


def react_guard_memories() -> tuple[AgentMemory, ...]:
    """Starts for the guardrails' rows: LLM guardrails that ask a human or stop, at every stage and alone.

    A rejected review is a refusal; a stage guarded alone lets a run pass the others; a later
    turn of a long thread takes the input guard's ``ThreadTooLong``.

    Example:
        >>> [len(m.guardrails) for m in react_guard_memories()][:4]
        [3, 1, 1, 1]
    """
    base = react_script_memories()[1]
    asks, stops = guardrails_at(OnTrip.ASK_HUMAN), guardrails_at(OnTrip.STOP)
    both = tuple(zip(asks, stops, strict=True))  # per stage: ask a human, then stop
    choices = (
        asks,
        *((g,) for g in asks),
        stops,
        *((g,) for g in stops),
        tuple(g for pair in both for g in pair),
        *both,
    )
    guarded = tuple(attrs.evolve(base, guardrails=chosen) for chosen in choices)
    # guarded[0], [4] and [8]: every stage asks, stops, or both; [1]: the input alone asks
    return (*guarded, *(_later_turn(guarded[n]) for n in (0, 4, 8, 1)))


def react_script_entries() -> tuple[tuple[State, AgentMemory], ...]:
    """Corrupt-memory starts in each tool state, for the rows that guard against them; and typed starts.

    A typed result's rows cannot share a run with ``AnswerTooShort`` (a typed result has no
    minimum length), so they are scripted alone: from Planning with a memory that asks for a
    typed result (no retry), and from Correcting with one reply rejected (a retry left, or none).

    Example:
        >>> [s.name for s, _ in react_script_entries()]
        ['Acting', 'ParallelActing', 'WaitingForHuman', 'Planning', 'Correcting', 'Correcting', 'Planning']
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
    # memories[4] has no step left: its MaxSteps row, which the covering paths may set aside
    return (*corrupt, (State.Planning, memories[-2]), *correcting, (State.Planning, memories[4]))


def react_guard_entries() -> tuple[tuple[State, AgentMemory], ...]:
    """Starts in GuardingToolCalls and GuardingOutput with a guardrail that refuses or stops.

    A run reaches them only after whole plans, which the covering paths may not script with
    the same start. A call is chosen with the token budget spent (so a refused call's
    shortest way on ends at once: the check trips unasked, the next plan finds the budget
    spent), or an answer given.

    Example:
        >>> [s.name for s, _ in react_guard_entries()][:2]
        ['GuardingToolCalls', 'GuardingOutput']
    """
    memories = react_script_memories()
    base, spent = memories[1].evolve(step=1), memories[5].evolve(step=1)
    call = ToolCall("call_1", "search", {"q": "Paris"})
    found: list[tuple[State, AgentMemory]] = []
    for action in (OnTrip.REFUSE, OnTrip.STOP):
        tools = next(g for g in guardrails_at(action) if g.stage == "tool_call")
        answer_guard = next(g for g in guardrails_at(action) if g.stage == "output")
        found.append((State.GuardingToolCalls, spent.evolve(current_tool_call=call, guardrails=(tools,))))
        answered = base.evolve(
            final_answer="The answer is Paris, the capital of France.", guardrails=(answer_guard,)
        )
        found.append((State.GuardingOutput, answered))
    return tuple(found)
