"""Hypothesis strategies for the built-in LLM values, malformed shapes included.

Messages, tool calls, tool specs, usages, requests, typed failures of every kind,
and replies of every shape a model produces: final answers (empty, short, long,
whitespace), single and parallel tool calls, unknown or empty tool names, tool
calls *and* text at once, duplicate call ids, low confidence, truncation.
:func:`llm_outcomes_for` reads an :class:`~agentsm_fn.llm.LlmCall` so the tool
names it generates are mostly the ones the request offers.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from agentsm_fn.llm import (
    AssistantMessage,
    JsonObject,
    LlmCall,
    LlmFailure,
    LlmFailureKind,
    LlmOutcome,
    LlmReply,
    LlmRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserMessage,
    freeze_object,
)

__all__ = [
    "json_objects",
    "llm_failures",
    "llm_outcome_examples",
    "llm_outcomes",
    "llm_outcomes_for",
    "llm_replies",
    "llm_requests",
    "messages",
    "tool_calls",
    "tool_names",
    "tool_specs",
    "usages",
]

_WORDS = st.text(max_size=30)
_SCALARS = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | _WORDS


def json_objects(max_leaves: int = 6) -> st.SearchStrategy[JsonObject]:
    """Frozen JSON objects of a few keys, nested a little.

    Example:
        >>> isinstance(json_objects(), st.SearchStrategy)
        True
    """
    values = st.recursive(
        _SCALARS,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_WORDS, inner, max_size=3),
        max_leaves=max_leaves,
    )
    return st.dictionaries(_WORDS, values, max_size=4).map(freeze_object)


def tool_names(known: Sequence[str] = ()) -> st.SearchStrategy[str]:
    """Mostly ``known`` names when given, sometimes unknown, empty or odd ones.

    Example:
        >>> isinstance(tool_names(("search",)), st.SearchStrategy)
        True
    """
    odd = st.sampled_from(("", " ", "unknown_tool", "SEARCH", "rm -rf /")) | _WORDS
    if not known:
        return st.sampled_from(("search", "calculator", "weather")) | odd
    return st.sampled_from(tuple(known)) | st.sampled_from(tuple(known)) | st.sampled_from(tuple(known)) | odd


def tool_calls(names: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[ToolCall]:
    """Tool calls with generated ids, names (see :func:`tool_names`) and JSON arguments.

    Example:
        >>> isinstance(tool_calls(), st.SearchStrategy)
        True
    """
    ids = st.sampled_from(("call_1", "call_2", "")) | st.text(max_size=12)
    return st.builds(
        ToolCall, id=ids, name=tool_names() if names is None else names, arguments=json_objects()
    )


def tool_specs() -> st.SearchStrategy[ToolSpec]:
    """Tool specs with a small JSON Schema object.

    Example:
        >>> isinstance(tool_specs(), st.SearchStrategy)
        True
    """
    schema = st.just({"type": "object"}) | st.just(
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    )
    return st.builds(ToolSpec, name=tool_names(), description=_WORDS, parameters=schema)


def usages() -> st.SearchStrategy[Usage]:
    """Token usages, from zero to large.

    Example:
        >>> isinstance(usages(), st.SearchStrategy)
        True
    """
    counts = st.integers(0, 200_000)
    return st.builds(Usage, input_tokens=counts, output_tokens=counts)


def messages() -> st.SearchStrategy[Message]:
    """Any message of a conversation: system, user, assistant (with tool calls), tool result.

    Example:
        >>> isinstance(messages(), st.SearchStrategy)
        True
    """
    return st.one_of(
        st.builds(SystemMessage, _WORDS),
        st.builds(UserMessage, _WORDS),
        st.builds(AssistantMessage, content=_WORDS, tool_calls=st.lists(tool_calls(), max_size=2).map(tuple)),
        st.builds(
            ToolResultMessage, tool_call_id=_WORDS, name=tool_names(), content=_WORDS, is_error=st.booleans()
        ),
    )


def llm_requests() -> st.SearchStrategy[LlmRequest]:
    """LLM requests of a few messages and tools.

    Example:
        >>> isinstance(llm_requests(), st.SearchStrategy)
        True
    """
    return st.builds(
        LlmRequest,
        model=st.sampled_from(("", "gpt-4o", "llama3.2")),
        messages=st.lists(messages(), max_size=4).map(tuple),
        tools=st.lists(tool_specs(), max_size=3).map(tuple),
    )


def llm_failures() -> st.SearchStrategy[LlmFailure]:
    """Typed LLM failures of every kind (timeouts, rate limits, malformed replies, ...).

    Example:
        >>> isinstance(llm_failures(), st.SearchStrategy)
        True
    """
    return st.builds(
        LlmFailure,
        kind=st.sampled_from(LlmFailureKind),
        message=st.sampled_from(("timed out", "rate limited", "bad body", "")),
        status=st.none() | st.sampled_from((400, 401, 429, 500, 503)),
        attempts=st.integers(1, 5),
    )


def _answers() -> st.SearchStrategy[str]:
    long = st.text(min_size=20, max_size=120)
    return (
        st.sampled_from(("", " ", "ok", "42", "The answer is Paris, the capital of France.")) | _WORDS | long
    )


def llm_replies(tool_names_: Sequence[str] = ()) -> st.SearchStrategy[LlmReply]:
    """Replies of every shape: answers, one or many tool calls, odd and malformed ones.

    Example:
        >>> isinstance(llm_replies(("search",)), st.SearchStrategy)
        True
    """
    calls = tool_calls(tool_names(tool_names_))
    confidence = st.sampled_from((1.0, 0.95, 0.5, 0.1, 0.0)) | st.floats(0.0, 1.0)
    finish = st.sampled_from(("", "stop", "tool_calls", "length"))
    return st.builds(
        LlmReply,
        content=_answers(),
        tool_calls=st.one_of(
            st.just(()), st.tuples(calls), st.lists(calls, min_size=2, max_size=4).map(tuple)
        ),
        usage=usages(),
        confidence=confidence,
        finish_reason=finish,
    )


def llm_outcomes(tool_names_: Sequence[str] = ()) -> st.SearchStrategy[LlmOutcome]:
    """Replies (mostly) and failures of every kind.

    Example:
        >>> isinstance(llm_outcomes(), st.SearchStrategy)
        True
    """
    replies = llm_replies(tool_names_)
    return st.one_of(replies, replies, replies, llm_failures())


def llm_outcomes_for(call: LlmCall) -> st.SearchStrategy[object]:
    """Outcomes for one call: tool names come mostly from the request's tools.

    Example:
        >>> isinstance(llm_outcomes_for(LlmCall(LlmRequest(model="", messages=()))), st.SearchStrategy)
        True
    """
    return llm_outcomes(tuple(t.name for t in call.request.tools))


def llm_outcome_examples(call: LlmCall) -> tuple[object, ...]:
    """A few representative outcomes for one call, for deterministic path searches.

    Example:
        >>> examples = llm_outcome_examples(LlmCall(LlmRequest(model="", messages=())))
        >>> any(isinstance(o, LlmFailure) for o in examples)
        True
    """
    names = tuple(t.name for t in call.request.tools) or ("search",)
    usage = Usage(input_tokens=10, output_tokens=5)
    answer = "The answer is Paris, the capital of France."
    found: list[object] = [LlmReply(content=answer, usage=usage, confidence=0.95)]
    found += [LlmReply(tool_calls=(ToolCall(id="call_1", name=n, arguments={}),), usage=usage) for n in names]
    found += [
        LlmReply(
            tool_calls=tuple(ToolCall(id=f"call_{i}", name=n, arguments={}) for i, n in enumerate(names * 2)),
            usage=usage,
        ),
        LlmReply(content="ok", usage=usage),
        LlmReply(content=answer, usage=usage, confidence=0.1),
        LlmReply(tool_calls=(ToolCall(id="call_x", name="unknown_tool", arguments={}),), usage=usage),
        LlmReply(content=answer, usage=Usage(input_tokens=100_000, output_tokens=100_000)),
        LlmFailure(kind=LlmFailureKind.TIMEOUT, message="timed out"),
        LlmFailure(kind=LlmFailureKind.HTTP_STATUS, status=500, message="server error"),
    ]
    return tuple(found)
