"""Strategies for the built-in ReAct agent: configs, memories, and outcomes of its effects.

* :func:`react_configs` and :func:`react_memories`: small limits (so MaxSteps,
  reflection and token budgets happen within a few steps), a pool of tools with
  and without approval, some blacklisted;
* :func:`tool_results`: successes, failures and timeouts of one tool call;
  :func:`tool_batch_results`: one result per call, sometimes one missing or extra;
* :func:`approval_decisions`: approved, rejected, modified;
* :func:`react_outcomes`: the :class:`~verification.kit.outcomes.Outcomes` registry
  for every effect the agent requests (LLM replies name the pool's tools, blacklisted
  and unknown ones included, with valid and invalid arguments);
* :func:`react_entries`: runs that begin in Acting, ParallelActing or WaitingForHuman
  with the corrupt memory their ``FatalError`` guard rows exist for.

The hand-picked starts of the deterministic suite are in :mod:`verification.kit.react_scripts`.
"""

from __future__ import annotations

import functools

import attrs
from hypothesis import strategies as st

from agentsm_fn.agents.output import OutputSpec
from agentsm_fn.agents.react import (
    AgentConfig,
    AgentMemory,
    ApprovalDecision,
    Approved,
    AskHuman,
    Modified,
    ReactToolResult,
    Rejected,
    RunTool,
    RunToolBatch,
    State,
    TokenBudget,
    ToolBatchResult,
)
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply, ToolCall, Usage, freeze_object
from agentsm_fn.tools.spec import ToolDef
from verification.kit.outcomes import Outcomes
from verification.kit.strategies import json_objects, llm_failures

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

_QUERY = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

TOOL_POOL: tuple[ToolDef, ...] = (
    ToolDef(name="search", description="Search the web", parameters=_QUERY, timeout=5.0),
    ToolDef(name="calculator", description="Evaluate arithmetic", parameters=_QUERY),
    ToolDef(name="delete_file", description="Delete a file", parameters=_QUERY, needs_approval=True),
    ToolDef(name="shell", description="Run a command", parameters={"type": "object"}),
)
"""The tools generated memories know (``delete_file`` needs approval)."""

_NAMES = (*(t.name for t in TOOL_POOL), "unknown_tool")
_ANSWER = "The answer is Paris, the capital of France."


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
    """Fresh memories as a user would build them: task, config, tools, blacklist.

    Example:
        >>> isinstance(react_memories(), st.SearchStrategy)
        True
    """
    return st.builds(
        _memory,
        task=st.sampled_from(("What is 2 + 2?", "Find the capital of France", "")),
        config=react_configs(),
        tools=st.just(list(TOOL_POOL))
        | st.lists(st.sampled_from(TOOL_POOL), unique_by=lambda t: t.name, max_size=len(TOOL_POOL)),
        banned=st.frozensets(st.sampled_from(("shell", "unknown_tool", "delete_file")), max_size=2),
        output=st.none() | st.just(ANSWER_OUTPUT),
    )


ANSWER_OUTPUT = OutputSpec(
    name="Answer",
    schema={"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
)
"""The typed result some generated memories ask for (replies give it, or break it)."""


def _memory(
    task: str, config: AgentConfig, tools: list[ToolDef], banned: frozenset[str], output: OutputSpec | None
) -> AgentMemory:
    memory = AgentMemory.new(task).with_config(config).with_tools(tools)
    return attrs.evolve(memory, blacklisted_tools=banned, output=output)


_USUAL_ARGUMENTS = st.sampled_from(({"q": "Paris"}, {"q": "2+2"}, {"q": "x"}, {}, {"q": 3}))
_ARGUMENTS: st.SearchStrategy[object] = st.one_of(
    st.just({"q": "Paris"}), _USUAL_ARGUMENTS, _USUAL_ARGUMENTS, json_objects(max_leaves=2)
)


def react_llm_outcomes(call: LlmCall) -> st.SearchStrategy[object]:
    """LLM outcomes for the agent's calls: answers, tool calls over the pool, failures.

    Example:
        >>> from agentsm_fn.llm import LlmRequest
        >>> isinstance(react_llm_outcomes(LlmCall(LlmRequest(model="", messages=()))), st.SearchStrategy)
        True
    """
    return _llm_outcomes(tuple(sorted({t.name for t in call.request.tools} | set(_NAMES))))


@functools.cache
def _llm_outcomes(names: tuple[str, ...]) -> st.SearchStrategy[object]:
    ids = st.sampled_from(("call_1", "call_2", "call_3"))
    usual = st.sampled_from(("search", "calculator"))
    calls = st.builds(ToolCall, id=ids, name=usual | st.sampled_from(names), arguments=_ARGUMENTS)
    usage = st.builds(Usage, input_tokens=st.integers(0, 40), output_tokens=st.integers(0, 20))
    confidence = st.sampled_from((1.0, 0.95, 0.5, 0.2, 0.0))
    content = st.sampled_from(("", _ANSWER, "ok", "   ", "Paris", *_TYPED)) | st.text(max_size=40)
    replies = st.builds(
        LlmReply,
        content=content,
        tool_calls=st.one_of(
            st.just(()), st.tuples(calls), st.lists(calls, min_size=2, max_size=3).map(tuple)
        ),
        usage=usage,
        confidence=confidence,
    )
    # A well-formed parallel turn (known tools, valid arguments), so ParallelActing succeeds often.
    good = st.builds(
        lambda n: LlmReply(
            tool_calls=tuple(
                ToolCall(f"call_{i}", ("search", "calculator")[i % 2], {"q": "Paris"}) for i in range(n)
            )
        ),
        st.integers(2, 3),
    )
    return st.one_of(replies, replies, replies, replies, good, llm_failures())


def _llm_examples(call: LlmCall) -> tuple[object, ...]:
    usage = Usage(input_tokens=10, output_tokens=5)

    def one(name: str, confidence: float = 1.0) -> LlmReply:
        return LlmReply(
            tool_calls=(ToolCall("call_1", name, {"q": "Paris"}),), usage=usage, confidence=confidence
        )

    two = (ToolCall("call_1", "search", {"q": "a"}), ToolCall("call_2", "calculator", {"q": "b"}))
    return (
        LlmReply(content=_ANSWER, usage=usage),
        *(LlmReply(content=text, usage=usage) for text in _TYPED),
        *(one(name) for name in _NAMES),
        LlmReply(tool_calls=two, usage=usage),
        one("search", confidence=0.0),
        LlmReply(content="ok", usage=usage),
        LlmReply(content=_ANSWER, usage=Usage(input_tokens=500, output_tokens=500)),
        LlmFailure(kind=LlmFailureKind.TIMEOUT, message="timed out"),
    )


_TYPED = ('{"answer": "Paris"}', '{"answer": 3}', "{}", '["Paris"]')
"""Replies for a typed result: valid, of the wrong type, missing its field, not an object."""

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
    st.builds(Modified, _ARGUMENTS.map(freeze_object)),
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
        .on(LlmCall, react_llm_outcomes, examples=_llm_examples)
        .on(RunTool, lambda e: tool_results(e.call), examples=_tool_examples)
        .on(RunToolBatch, tool_batch_results, examples=_batch_examples)
        .on(
            AskHuman,
            approval_decisions,
            examples=lambda _: (Approved(), Rejected("no"), Modified({"q": "x"})),
        )
    )


def _tool_examples(run: RunTool) -> tuple[object, ...]:
    c = run.call
    return (
        ReactToolResult(call_id=c.id, name=c.name, ok=True, output="4"),
        ReactToolResult.failure(c.id, c.name, "Timeout", "timed out after 5s"),
    )


def _batch_examples(batch: RunToolBatch) -> tuple[object, ...]:
    ok = tuple(ReactToolResult(call_id=r.call.id, name=r.call.name, ok=True, output="4") for r in batch.runs)
    failed = tuple(ReactToolResult.failure(r.call.id, r.call.name, "ValueError", "bad") for r in batch.runs)
    return ToolBatchResult(ok), ToolBatchResult(failed)


def react_entries(
    memories: st.SearchStrategy[AgentMemory] | None = None,
) -> st.SearchStrategy[tuple[State, AgentMemory]]:
    """Runs entering a tool state with the corrupt memory its FatalError guard exists for.

    Example:
        >>> isinstance(react_entries(), st.SearchStrategy)
        True
    """
    base = memories or react_memories()
    cleared = base.map(
        lambda m: attrs.evolve(m, current_tool_call=None, pending_tool_calls=(), pending_approval=None)
    )
    return st.tuples(st.sampled_from((State.Acting, State.ParallelActing, State.WaitingForHuman)), cleared)
