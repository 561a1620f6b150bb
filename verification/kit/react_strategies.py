"""Strategies for the built-in ReAct agent: configs, memories, and outcomes of its effects.

* :func:`react_configs` and :func:`react_memories`: small limits (so MaxSteps,
  reflection and token budgets happen within a few steps), a pool of tools with
  and without approval, some blacklisted, some asking for a typed result, some holding LLM
  guardrails (``GUARDRAIL_POOL``: every stage, every action);
* :func:`react_llm_outcomes` (from :mod:`verification.kit.react_replies`): LLM replies;
* :func:`tool_results`: successes, failures and timeouts of one tool call;
  :func:`tool_batch_results`: one result per call, sometimes one missing or extra;
* :func:`approval_decisions`: approved, rejected, modified; a child agent's outcomes are
  :mod:`verification.kit.react_children`'s;
* :func:`react_outcomes`: the :class:`~verification.kit.outcomes.Outcomes` registry
  for every effect the agent requests (LLM replies name the pool's tools, blacklisted
  and unknown ones included, with valid and invalid arguments);
* :func:`react_entries`: runs that begin in Acting, ParallelActing or WaitingForHuman
  with the corrupt memory their ``FatalError`` guard rows exist for.

The hand-picked starts of the deterministic suite are in :mod:`verification.kit.react_scripts`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import attrs
from hypothesis import strategies as st

from agentsm_fn.agents.guardrails import GuardrailSpec
from agentsm_fn.agents.output import OutputSpec
from agentsm_fn.agents.react import (
    AgentConfig,
    AgentMemory,
    ApprovalDecision,
    Approved,
    AskHuman,
    HumanApprovalRequest,
    Modified,
    ReactToolResult,
    Rejected,
    RunTool,
    RunToolBatch,
    State,
    TokenBudget,
    ToolBatchResult,
)
from agentsm_fn.agents.react.policy import approval_reason
from agentsm_fn.llm import LlmCall, ToolCall, freeze_object
from agentsm_fn.teams import ChildRun
from agentsm_fn.tools.spec import ToolDef
from verification.kit.outcomes import Outcomes
from verification.kit.react_children import batch_examples, child_examples, child_outcomes, tool_examples
from verification.kit.react_replies import (
    ANSWER_OUTPUT,
    GUARDRAIL_POOL,
    TOOL_ARGUMENTS,
    TOOL_POOL,
    llm_examples,
    react_llm_outcomes,
)
from verification.kit.thread_strategies import in_thread

__all__ = [
    "ANSWER_OUTPUT",
    "TOOL_POOL",
    "approval_decisions",
    "react_configs",
    "react_entries",
    "react_llm_outcomes",
    "react_memories",
    "react_outcomes",
    "tool_batch_results",
    "tool_results",
]


def react_configs() -> st.SearchStrategy[AgentConfig]:
    """Configs with small limits, so every guard is reachable in a few steps.

    Example:
        >>> isinstance(react_configs(), st.SearchStrategy)
        True
    """
    budgets = st.none() | st.builds(TokenBudget, total=st.integers(0, 120))
    return st.builds(
        AgentConfig,
        max_steps=st.integers(0, 6),
        max_retries=st.integers(0, 2),
        confidence_threshold=st.sampled_from((0.0, 0.4, 0.9)),
        reflect_every_n_steps=st.integers(0, 3),
        min_answer_length=st.sampled_from((0, 5, 20)),
        parallel_tools=st.booleans(),
        approve_all_tools=st.booleans() | st.just(False),
        budget=budgets,
        max_output_retries=st.integers(0, 2),
    )


def react_memories() -> st.SearchStrategy[AgentMemory]:
    """Fresh memories as a user would build them: task, config, tools, blacklist, maybe a thread.

    Example:
        >>> isinstance(react_memories(), st.SearchStrategy)
        True
    """
    made = st.builds(
        _memory,
        task=st.sampled_from(("What is 2 + 2?", "Find the capital of France", "")),
        config=react_configs(),
        tools=st.just(list(TOOL_POOL))
        | st.lists(st.sampled_from(TOOL_POOL), unique_by=lambda t: t.name, max_size=len(TOOL_POOL)),
        banned=st.frozensets(st.sampled_from(("shell", "unknown_tool", "delete_file")), max_size=2),
        output=st.none() | st.just(ANSWER_OUTPUT),
        guardrails=st.just(()) | st.just(()) | _guardrails(),  # a third hold some
    )
    return in_thread(made)  # some are a thread's later turns


def _guardrails() -> st.SearchStrategy[tuple[GuardrailSpec, ...]]:
    """At most one LLM guardrail per stage, each stage guarded or not."""

    def at(stage: str) -> st.SearchStrategy[tuple[GuardrailSpec, ...]]:
        pool = [g for g in GUARDRAIL_POOL if g.stage == stage]
        return st.just(()) | st.sampled_from(pool).map(lambda g: (g,))

    return st.tuples(at("input"), at("tool_call"), at("output")).map(
        lambda gs: tuple(g for s in gs for g in s)
    )


def _memory(
    task: str,
    config: AgentConfig,
    tools: list[ToolDef],
    banned: frozenset[str],
    output: OutputSpec | None,
    guardrails: Sequence[GuardrailSpec] = (),
) -> AgentMemory:
    memory = AgentMemory.new(task).with_config(config).with_tools(tools)
    return attrs.evolve(memory, blacklisted_tools=banned, output=output, guardrails=tuple(guardrails))


_OUTPUT = st.sampled_from(("4", "Paris", "")) | st.text(max_size=20)
_ERROR_TYPE = st.sampled_from(("Timeout", "ValueError", "ConnectionError"))
# (ok, output, error type) of one result; the call's id and name are filled in after.
_RESULT_SHAPE = st.one_of(
    st.tuples(st.just(True), _OUTPUT, st.just("")),
    st.tuples(st.just(True), _OUTPUT, st.just("")),
    st.tuples(st.just(False), _OUTPUT, _ERROR_TYPE),
)


def _result(call: ToolCall, shape: tuple[bool, str, str]) -> ReactToolResult:
    ok, output, error_type = shape
    return ReactToolResult(call_id=call.id, name=call.name, ok=ok, output=output, error_type=error_type)


def tool_results(call: ToolCall) -> st.SearchStrategy[ReactToolResult]:
    """Results of one call: success, a tool error, a timeout.

    Example:
        >>> isinstance(tool_results(ToolCall("c", "search", {})), st.SearchStrategy)
        True
    """
    return _tool_results(call)


@functools.cache
def _tool_results(call: ToolCall) -> st.SearchStrategy[ReactToolResult]:
    return _RESULT_SHAPE.map(lambda shape: _result(call, shape))


def tool_batch_results(batch: RunToolBatch) -> st.SearchStrategy[ToolBatchResult]:
    """One result per call in call order; sometimes the runner loses or adds one.

    Example:
        >>> isinstance(tool_batch_results(RunToolBatch(())), st.SearchStrategy)
        True
    """
    return _batch_results(tuple(run.call for run in batch.runs))


@functools.cache
def _batch_results(calls: tuple[ToolCall, ...]) -> st.SearchStrategy[ToolBatchResult]:
    shapes = st.lists(_RESULT_SHAPE, min_size=len(calls), max_size=len(calls))
    exact = shapes.map(lambda found: tuple(_result(c, s) for c, s in zip(calls, found, strict=True)))
    lossy = exact.map(lambda rs: rs[:-1]) | exact.map(
        lambda rs: (*rs, ReactToolResult.failure("x", "x", "Extra", ""))
    )
    all_ok = st.just(tuple(ReactToolResult(call_id=c.id, name=c.name, ok=True, output="4") for c in calls))
    return st.one_of(all_ok, exact, exact, lossy).map(ToolBatchResult)


def approval_decisions(_: AskHuman | None = None) -> st.SearchStrategy[ApprovalDecision]:
    """Approved, Rejected (with or without a reason), Modified (new arguments).

    Example:
        >>> isinstance(approval_decisions(), st.SearchStrategy)
        True
    """
    return _DECISIONS


_DECISIONS: st.SearchStrategy[ApprovalDecision] = st.one_of(
    st.just(Approved()),
    st.builds(Rejected, st.sampled_from(("", "too risky"))),
    st.builds(Modified, TOOL_ARGUMENTS.map(freeze_object)),
)


def react_outcomes() -> Outcomes:
    """The registry for every effect of the ReAct agent (LLM calls, tools, approvals).

    Example:
        >>> from agentsm_fn.agents.react import HumanApprovalRequest
        >>> ask = AskHuman(HumanApprovalRequest(step=1, tool_call=ToolCall("c", "rm", {}), reason="policy"))
        >>> Approved() in react_outcomes().examples_for(ask)
        True
    """
    return (
        Outcomes()
        .on(LlmCall, react_llm_outcomes, examples=llm_examples)
        .on(RunTool, lambda e: tool_results(e.call), examples=tool_examples)
        .on(RunToolBatch, tool_batch_results, examples=batch_examples)
        .on(ChildRun, child_outcomes, examples=child_examples)
        .on(
            AskHuman,
            approval_decisions,
            examples=lambda _: (Approved(), Rejected("no"), Modified({"q": "x"})),
        )
    )


def react_entries(
    memories: st.SearchStrategy[AgentMemory] | None = None,
) -> st.SearchStrategy[tuple[State, AgentMemory]]:
    """Runs entering states few generated runs reach: a tool state with a corrupt memory, guarded ones.

    Tool states with the corrupt memory their FatalError guard exists for; GuardingToolCalls (a call
    chosen), GuardingOutput (an answer), Planning, GuardingInput with a guardrail, any action; Acting
    with a handoff called.

    Example:
        >>> isinstance(react_entries(), st.SearchStrategy)
        True
    """
    base = memories or react_memories()
    cleared = base.map(
        lambda m: attrs.evolve(m, current_tool_call=None, pending_tool_calls=(), pending_approval=None)
    )
    corrupt = st.tuples(st.sampled_from((State.Acting, State.ParallelActing, State.WaitingForHuman)), cleared)
    output_guards = [g for g in GUARDRAIL_POOL if g.stage == "output"]
    answered = st.builds(
        lambda m, guard: m.evolve(
            step=min(1, m.config.max_steps),
            output=None,
            final_answer="The answer is Paris, the capital of France.",
            guardrails=(guard,),
        ),
        base,
        st.sampled_from(output_guards),
    )
    tool_guards = [g for g in GUARDRAIL_POOL if g.stage == "tool_call"]
    planned = base.filter(lambda m: m.config.max_steps >= 1)  # a call is chosen in a plan's step
    called = st.builds(
        _called, planned, st.sampled_from(("search", "delete_file")), st.sampled_from(tool_guards)
    )
    input_guards = [g for g in GUARDRAIL_POOL if g.stage == "input"]
    return (
        corrupt
        | st.tuples(st.just(State.GuardingOutput), answered)
        | st.tuples(st.just(State.GuardingToolCalls), called)
        | st.tuples(st.just(State.Planning), st.builds(_guarded, base, st.sampled_from(output_guards)))
        | st.tuples(st.just(State.GuardingInput), st.builds(_guarded, base, st.sampled_from(input_guards)))
        | st.tuples(st.just(State.Acting), planned.map(_handing))
    )


def _handing(memory: AgentMemory) -> AgentMemory:
    """``memory`` as Planning leaves it with the handoff of the pool called (Acting hands over)."""
    tools = (*(t for t in memory.tools if t.name != TOOL_POOL[-1].name), TOOL_POOL[-1])
    call = ToolCall("call_1", TOOL_POOL[-1].name, {})
    return memory.evolve(step=1, tools=tools, blacklisted_tools=frozenset(), current_tool_call=call)


def _guarded(memory: AgentMemory, guard: GuardrailSpec) -> AgentMemory:
    return memory.evolve(guardrails=(guard,))


def _called(memory: AgentMemory, tool: str, guard: GuardrailSpec) -> AgentMemory:
    """``memory`` as Planning leaves it with ``tool`` called (waiting for approval if it needs one)."""
    banned = memory.blacklisted_tools - {tool}  # Planning never chooses a blacklisted tool
    stepped = memory.evolve(step=1, guardrails=(guard,), blacklisted_tools=banned)
    call = ToolCall("call_1", tool, {"q": "Paris"})
    reason = approval_reason(stepped, call)
    waiting = (
        None if reason is None else HumanApprovalRequest(step=stepped.step, tool_call=call, reason=reason)
    )
    return stepped.evolve(current_tool_call=call, pending_approval=waiting)
