"""The ReAct agent's invariants (seed 001's ownership rules and its safety promises), ready to use.

:data:`REACT_INVARIANTS` holds every rule below; each is also importable alone:

* ownership (001): only Planning changes ``step``; ``current_tool_call`` is set by
  Planning (WaitingForHuman may replace its arguments, keeping id and name) and
  cleared by Observing; ``last_observation`` is set by Acting and cleared by
  Observing; ``history`` grows only in Observing (append-only) and is rewritten only
  by Reflecting's compression; typed results: ``output_retries`` changes only in
  Correcting, ``rejected_outputs`` only in Planning, ``result`` in Planning (and
  GuardingOutput, which withholds a refused one); a thread's earlier turns
  (``conversation``) change only in Reflecting (compressed when a turn starts over the
  thread's context budget); guardrails: ``guardrail_checks`` changes only in the guarding
  states (append-only) and the reviewing states (a human's review of the last); GuardingToolCalls may
  set ``last_observation`` (a refused call's);
* guardrails hold: no tool runs in a turn whose guardrail tripped (unless a human approved),
  no answer reaches Done past a tripped output guardrail;
* ``step`` never exceeds ``config.max_steps``, ``output_retries`` never ``config.max_output_retries``;
* a blacklisted tool is never executed (no ``RunTool`` of it, alone or in a batch);
* a tool that needs approval never runs without it (an ``Approved`` or ``Modified``
  decision on that very call);
* the token budget is never exceeded by more than one call: no LLM call is made
  once the budget is spent (the turn's, or the thread's over all its turns).

The trace is append-only and Done and Error never change memory: the derived
state machine checks both for every machine. :func:`react_budget` is the budget
to pass to :func:`~verification.kit.check_machine` (visits to the budgeted states: Planning's
``max_steps + 1`` and Correcting's ``max_output_retries + 1``).

:data:`REACT_PROPERTIES` says the safety promises over whole runs
(:mod:`verification.kit.run_properties`): no tool that needs approval runs without an
Approved or Modified answer to an ``AskHuman`` for that very call earlier in the run; a
blacklisted tool never runs; the agent finishes within its step bound (the verifier's
worst case for ``react_budget`` of the start memory).
"""

from __future__ import annotations

from typing import TypeAlias

from agentsm_fn.agents.react import (
    REACT_MACHINE,
    AgentMemory,
    Approved,
    AskHuman,
    Modified,
    RunTool,
    RunToolBatch,
    State,
)
from agentsm_fn.llm import LlmCall, ToolCall
from verification.kit.invariants import (
    MemoryInvariant,
    Transition,
    TransitionInvariant,
    append_only,
    cleared_in,
    memory_invariant,
    only_changed_in,
    transition_invariant,
)
from verification.kit.letters import Letter, received
from verification.kit.run_properties import RunProperty, at_most, never, only_after
from verification.verify import step_bound

__all__ = [
    "APPROVAL_FIRST",
    "APPROVAL_REQUIRED",
    "BLACKLIST_RESPECTED",
    "BUDGET_RESPECTED",
    "GUARDRAILS_RESPECTED",
    "FINISHES_WITHIN_BOUND",
    "NO_BLACKLISTED_RUN",
    "OUTPUT_RETRIES_WITHIN_MAX",
    "OWNERSHIP",
    "REACT_INVARIANTS",
    "REACT_PROPERTIES",
    "STEP_WITHIN_MAX",
    "ReactInvariant",
    "react_budget",
]

ReactInvariant: TypeAlias = MemoryInvariant[AgentMemory] | TransitionInvariant[State, AgentMemory]
"""A built-in invariant of the ReAct agent (over memory or over a transition)."""


def react_budget(memory: AgentMemory) -> int:
    """Visits to the budgeted states a run may make: Planning's steps and Correcting's retries, each plus one.

    A guarded stage adds its guarding state's visits: one more than its guardrails (each
    review comes back), per step for tool calls.

    Example:
        >>> react_budget(AgentMemory.new("t"))
        20
    """
    steps = max(memory.config.max_steps, 0)
    held = {
        stage: sum(1 for g in memory.guardrails if g.stage == stage)
        for stage in ("input", "tool_call", "output")
    }
    visits = {stage: held[stage] + 1 if held[stage] else 0 for stage in held}
    guarding = visits["input"] + visits["output"] + steps * visits["tool_call"]
    return steps + 1 + max(memory.config.max_output_retries, 0) + 1 + guarding


def _tool_call_ownership(t: Transition[State, AgentMemory]) -> bool:
    before, after = t.before.current_tool_call, t.after.current_tool_call
    if before == after or t.source is State.Planning:
        return True
    if t.source in (State.WaitingForHuman, State.ReviewingToolCalls):  # a person's Modified arguments
        return before is not None and after is not None and (before.id, before.name) == (after.id, after.name)
    return t.source is State.Observing


def _executed(t: Transition[State, AgentMemory]) -> tuple[ToolCall, ...]:
    calls: list[ToolCall] = []
    for effect in t.effects:
        if isinstance(effect, RunTool):
            calls.append(effect.call)
        elif isinstance(effect, RunToolBatch):
            calls.extend(run.call for run in effect.runs)
    return tuple(calls)


def _no_blacklisted_run(t: Transition[State, AgentMemory]) -> bool:
    return all(call.name not in t.before.blacklisted_tools for call in _executed(t))


def _needs_approval(memory: AgentMemory, call: ToolCall) -> bool:
    definition = memory.tool(call.name)
    return memory.config.approve_all_tools or (definition is not None and definition.needs_approval)


def _approved(memory: AgentMemory, call: ToolCall) -> bool:
    request = memory.pending_approval
    return (
        request is not None
        and request.tool_call.id == call.id
        and isinstance(request.decision, Approved | Modified)
    )


def _approval_respected(t: Transition[State, AgentMemory]) -> bool:
    return all(_approved(t.before, c) for c in _executed(t) if _needs_approval(t.before, c))


def _budget_respected(t: Transition[State, AgentMemory]) -> bool:
    if not any(isinstance(e, LlmCall) for e in t.effects):
        return True
    before = t.before
    if before.config.thread.spent(before.conversation.usage + before.total_usage) is not None:
        return False
    return before.budget is None or before.budget.exhausted_by(before.total_usage) is None


STEP_WITHIN_MAX: MemoryInvariant[AgentMemory] = memory_invariant(
    "step never exceeds config.max_steps", lambda m: m.step <= max(m.config.max_steps, 0)
)
"""``step <= config.max_steps`` in every reachable memory."""

OUTPUT_RETRIES_WITHIN_MAX: MemoryInvariant[AgentMemory] = memory_invariant(
    "output_retries never exceeds config.max_output_retries",
    lambda m: m.output_retries <= max(m.config.max_output_retries, 0),
)
"""``output_retries <= config.max_output_retries`` in every reachable memory (Correcting's budget)."""

BLACKLIST_RESPECTED: TransitionInvariant[State, AgentMemory] = transition_invariant(
    "a blacklisted tool is never executed", _no_blacklisted_run
)
"""No ``RunTool`` (alone or in a batch) names a blacklisted tool."""

APPROVAL_REQUIRED: TransitionInvariant[State, AgentMemory] = transition_invariant(
    "a tool that needs approval never runs without it", _approval_respected
)
"""A call that needs approval runs only after an Approved or Modified decision on it."""

BUDGET_RESPECTED: TransitionInvariant[State, AgentMemory] = transition_invariant(
    "no LLM call once the token budget is spent", _budget_respected
)
"""The budget is exceeded by at most the one call that crossed it."""

_GUARDING = frozenset({State.GuardingInput, State.GuardingToolCalls, State.GuardingOutput})
_REVIEWING = frozenset({State.ReviewingInput, State.ReviewingToolCalls, State.ReviewingOutput})


def _tripped_calls_never_run(t: Transition[State, AgentMemory]) -> bool:
    if not _executed(t):
        return True
    at = t.before.step
    return all(c.passed for c in t.before.guardrail_checks if c.stage == "tool_call" and c.at == at)


def _answers_past_their_guardrails(t: Transition[State, AgentMemory]) -> bool:
    if t.target is not State.Done:
        return True
    at = t.after.step
    return all(c.passed for c in t.after.guardrail_checks if c.stage == "output" and c.at == at)


GUARDRAILS_RESPECTED: tuple[TransitionInvariant[State, AgentMemory], ...] = (
    transition_invariant("no tool runs in a turn whose guardrail tripped", _tripped_calls_never_run),
    transition_invariant(
        "no answer is given past a tripped output guardrail", _answers_past_their_guardrails
    ),
)
"""A tool call runs, and an answer reaches Done, only when every guardrail of theirs passed (or a human
approved its trip)."""

OWNERSHIP: tuple[TransitionInvariant[State, AgentMemory], ...] = (
    only_changed_in("step", lambda m: m.step, {State.Planning}),
    transition_invariant(
        "current_tool_call is set by Planning and cleared by Observing", _tool_call_ownership
    ),
    cleared_in("current_tool_call", lambda m: m.current_tool_call, {State.Observing}),
    only_changed_in(
        "last_observation",
        lambda m: m.last_observation,
        {State.Acting, State.Observing, State.GuardingToolCalls},
    ),
    cleared_in("last_observation", lambda m: m.last_observation, {State.Observing}),
    only_changed_in("history", lambda m: m.history, {State.Observing, State.Reflecting}),
    append_only("history", lambda m: m.history, except_in={State.Reflecting}),
    only_changed_in("output_retries", lambda m: m.output_retries, {State.Correcting}),
    only_changed_in("rejected_outputs", lambda m: m.rejected_outputs, {State.Planning}),
    only_changed_in("result", lambda m: m.result, {State.Planning, State.GuardingOutput}),
    only_changed_in("conversation", lambda m: m.conversation, {State.Reflecting}),
    only_changed_in("guardrail_checks", lambda m: m.guardrail_checks, {*_GUARDING, *_REVIEWING}),
    append_only("guardrail_checks", lambda m: m.guardrail_checks, except_in=_REVIEWING),
)
"""Seed 001's ownership table, as transition invariants."""

REACT_INVARIANTS: tuple[ReactInvariant, ...] = (
    *OWNERSHIP,
    *GUARDRAILS_RESPECTED,
    STEP_WITHIN_MAX,
    OUTPUT_RETRIES_WITHIN_MAX,
    BLACKLIST_RESPECTED,
    APPROVAL_REQUIRED,
    BUDGET_RESPECTED,
)
"""Every built-in invariant of the ReAct agent."""


def _approval_needing_runs(t: Transition[State, AgentMemory]) -> tuple[str, ...]:
    return tuple(c.id for c in _executed(t) if _needs_approval(t.before, c))


def _blacklisted_runs(t: Transition[State, AgentMemory]) -> tuple[str, ...]:
    return tuple(c.name for c in _executed(t) if c.name in t.before.blacklisted_tools)


def _transitions_allowed(memory: AgentMemory) -> int:
    bound = step_bound(REACT_MACHINE)
    assert bound is not None  # Planning is budgeted and every cycle passes through it
    return bound.max_transitions(react_budget(memory))


APPROVAL_FIRST: RunProperty[State, AgentMemory] = only_after(
    Letter("a tool that needs approval runs", _approval_needing_runs),
    received(AskHuman, lambda o: isinstance(o, Approved | Modified), key=lambda e: e.request.tool_call.id),
    name="no tool that needs approval runs without one",
)
"""Precedence: each call that needs approval runs only after an approval of that very call."""

NO_BLACKLISTED_RUN: RunProperty[State, AgentMemory] = never(
    Letter("a blacklisted tool runs", _blacklisted_runs), name="a blacklisted tool never runs"
)
"""Absence: no ``RunTool`` (alone or in a batch) of a blacklisted tool, in the whole run."""

FINISHES_WITHIN_BOUND: RunProperty[State, AgentMemory] = at_most(
    _transitions_allowed,
    Letter("a transition", lambda t: (None,)),
    name="ReAct finishes within its step bound",
)
"""Bounded existence: at most the verifier's bound of transitions for the start memory's budget."""

REACT_PROPERTIES: tuple[RunProperty[State, AgentMemory], ...] = (
    APPROVAL_FIRST,
    NO_BLACKLISTED_RUN,
    FINISHES_WITHIN_BOUND,
)
"""The ReAct agent's run properties, checked over every generated or explored run."""
