"""The LLM side of the ReAct strategies: the tool pool, typed-result replies, and LLM outcomes.

* :data:`TOOL_POOL`: the tools generated memories know (``delete_file`` needs approval);
* :data:`ANSWER_OUTPUT`: the typed result some generated memories ask for;
* :func:`react_llm_outcomes`: answers (text, and JSON that gives the typed result or breaks it),
  tool calls over the pool (blacklisted and unknown tools included, arguments valid and not),
  failures; for a guardrail's check, verdicts that pass and trip, replies that are none, and
  failures; ``llm_examples`` the representative ones the deterministic suite scripts with;
* :data:`GUARDRAIL_POOL`: the LLM guardrails generated memories hold (every stage, every action).
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from agentsm_fn.agents.guardrails import GuardrailSpec, OnTrip
from agentsm_fn.agents.output import OutputSpec
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply, ToolCall, Usage
from agentsm_fn.tools.spec import ToolDef
from verification.kit.strategies import json_objects, llm_failures

__all__ = [
    "ANSWER_OUTPUT",
    "GUARDRAIL_POOL",
    "TOOL_ARGUMENTS",
    "TOOL_POOL",
    "guardrails_at",
    "llm_examples",
    "react_llm_outcomes",
]

_QUERY = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

TOOL_POOL: tuple[ToolDef, ...] = (
    ToolDef(name="search", description="Search the web", parameters=_QUERY, timeout=5.0),
    ToolDef(name="calculator", description="Evaluate arithmetic", parameters=_QUERY),
    ToolDef(name="delete_file", description="Delete a file", parameters=_QUERY, needs_approval=True),
    ToolDef(name="shell", description="Run a command", parameters={"type": "object"}),
    ToolDef(name="ask_expert", description="Ask an agent", parameters={"type": "object"}, agent="kit:EXPERT"),
    ToolDef(name="transfer_to_refunds", description="Hand over", agent="kit:REFUNDS", hands_off=True),
)
"""The tools generated memories know (``delete_file`` needs approval; ``ask_expert`` is an agent, run as a
child run; ``transfer_to_refunds`` hands the conversation over)."""

_NAMES = (*(t.name for t in TOOL_POOL), "unknown_tool")
_ANSWER = "The answer is Paris, the capital of France."


GUARDRAIL_POOL: tuple[GuardrailSpec, ...] = tuple(
    GuardrailSpec(name=f"{stage}-{action.value}", stage=stage, instructions="Check it.", on_trip=action)
    for stage in ("input", "tool_call", "output")
    for action in OnTrip
)
"""An LLM guardrail for every stage and action (generated memories hold some of them)."""


def guardrails_at(action: OnTrip) -> tuple[GuardrailSpec, ...]:
    """The pool's guardrails that take ``action``, one per stage.

    Example:
        >>> [g.name for g in guardrails_at(OnTrip.STOP)]
        ['input-stop', 'tool_call-stop', 'output-stop']
    """
    return tuple(g for g in GUARDRAIL_POOL if g.on_trip is action)


ANSWER_OUTPUT = OutputSpec(
    name="Answer",
    schema={"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
)
"""The typed result some generated memories ask for (replies give it, or break it)."""


_USUAL_ARGUMENTS = st.sampled_from(({"q": "Paris"}, {"q": "2+2"}, {"q": "x"}, {}, {"q": 3}))
TOOL_ARGUMENTS: st.SearchStrategy[object] = st.one_of(
    st.just({"q": "Paris"}), _USUAL_ARGUMENTS, _USUAL_ARGUMENTS, json_objects(max_leaves=2)
)
"""Tool-call arguments: mostly the pool's (valid and not), sometimes any JSON object."""


_VERDICTS = (
    LlmReply(content='{"tripped": false, "reason": "fine"}'),
    LlmReply(content='{"tripped": true, "reason": "breaks the rule"}'),
)


def _checking(call: LlmCall) -> bool:
    return call.purpose.startswith("guardrail ")


def react_llm_outcomes(call: LlmCall) -> st.SearchStrategy[object]:
    """LLM outcomes for the agent's calls: answers, tool calls over the pool, failures.

    A guardrail's check gets verdicts (passing and tripping), replies that are none, failures.

    Example:
        >>> from agentsm_fn.llm import LlmRequest
        >>> isinstance(react_llm_outcomes(LlmCall(LlmRequest(model="", messages=()))), st.SearchStrategy)
        True
    """
    if _checking(call):
        return _GUARDRAIL_OUTCOMES
    return _llm_outcomes(tuple(sorted({t.name for t in call.request.tools} | set(_NAMES))))


_GUARDRAIL_OUTCOMES: st.SearchStrategy[object] = st.one_of(
    st.sampled_from(_VERDICTS),
    st.sampled_from(_VERDICTS),
    st.builds(LlmReply, content=st.sampled_from(("", "fine", '{"tripped": "no"}', '{"tripped": true}'))),
    llm_failures(),
)


@functools.cache
def _llm_outcomes(names: tuple[str, ...]) -> st.SearchStrategy[object]:
    ids = st.sampled_from(("call_1", "call_2", "call_3"))
    usual = st.sampled_from(("search", "calculator"))
    calls = st.builds(ToolCall, id=ids, name=usual | st.sampled_from(names), arguments=TOOL_ARGUMENTS)
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


def llm_examples(call: LlmCall) -> tuple[object, ...]:
    """The representative outcomes of an LLM call (one of each kind the agent reacts to).

    Example:
        >>> from agentsm_fn.llm import LlmRequest
        >>> len(llm_examples(LlmCall(LlmRequest(model="", messages=())))) > 8
        True
    """
    if _checking(call):
        return (*_VERDICTS, LlmFailure(kind=LlmFailureKind.TIMEOUT, message="timed out"))
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
