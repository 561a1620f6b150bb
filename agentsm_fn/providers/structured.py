"""Structured output through a final-result tool: the request's schema as a tool, its call as the reply.

A request with a ``response_schema`` is asked for in one of two ways, each codec's choice
(``structured=``, overridable per provider):

* ``"native"``: the wire's own structured-output field (OpenAI ``response_format``,
  Ollama ``format``, Anthropic ``output_config``), the model's reply text is the JSON;
* ``"tool"``: a tool named :data:`~agentsm_fn.llm.RESULT_TOOL` whose parameters are the
  schema, which the model is made to call (alone: that tool; with other tools: any tool).
  :func:`~agentsm_fn.providers.codec.assemble` turns its call back into the reply's text (the
  JSON of its arguments, other calls of that reply dropped), and :class:`ResultStream` turns its
  streamed arguments into text deltas, so a caller sees the same reply either way.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from agentsm_fn.llm.call import RESULT_TOOL, LlmRequest
from agentsm_fn.llm.messages import ToolSpec
from agentsm_fn.llm.replies import LlmOutcome
from agentsm_fn.providers.codec import StreamDecoder
from agentsm_fn.providers.events import StreamEvent, TextDelta, ToolCallArguments, ToolCallStarted

__all__ = ["ResultStream", "Structured", "result_stream", "result_tool", "wants_tool"]

Structured: TypeAlias = Literal["native", "tool"]
"""How a provider is asked for structured output: its own field, or a final-result tool."""


def wants_tool(request: LlmRequest, structured: Structured) -> bool:
    """True when ``request`` asks for structured output and the codec asks through the tool.

    Example:
        >>> wants_tool(LlmRequest(model="", messages=(), response_schema={"type": "object"}), "tool")
        True
        >>> wants_tool(LlmRequest(model="", messages=()), "tool")
        False
    """
    return structured == "tool" and request.response_schema is not None


def result_tool(request: LlmRequest) -> ToolSpec:
    """The final-result tool for ``request``: its name, a description, the schema as parameters.

    Example:
        >>> spec = result_tool(LlmRequest(model="", messages=(), response_schema={"type": "object"},
        ...                               response_name="Invoice"))
        >>> spec.name, spec.description
        ('final_result', 'Call this tool to give the final result (Invoice) once the task is done.')
    """
    name = request.response_name or "result"
    text = f"Call this tool to give the final result ({name}) once the task is done."
    if request.response_description:
        text = f"{text} {request.response_description}"
    return ToolSpec(RESULT_TOOL, text, request.response_schema or {"type": "object"})


class ResultStream:
    r"""A stream decoder whose final-result tool call streams as text (its arguments, the result's JSON).

    Example:
        >>> from agentsm_fn.providers.openai_stream import OpenAiStreamDecoder
        >>> request = LlmRequest(model="", messages=(), response_schema={"type": "object"})
        >>> d = ResultStream(OpenAiStreamDecoder(request))
        >>> call = '{"index":0,"id":"c1","function":{"name":"final_result","arguments":"{\\"a\\""}}'
        >>> d.feed("", '{"choices":[{"index":0,"delta":{"tool_calls":[' + call + ']}}]}')
        (TextDelta(text='{"a"'),)
    """

    def __init__(self, inner: StreamDecoder) -> None:
        self._inner = inner
        self._result: set[int] = set()

    @property
    def done(self) -> bool:
        return self._inner.done

    def feed(self, event: str, data: str) -> tuple[StreamEvent, ...]:
        out: list[StreamEvent] = []
        for item in self._inner.feed(event, data):
            if isinstance(item, ToolCallStarted) and item.name == RESULT_TOOL:
                self._result.add(item.index)
            elif isinstance(item, ToolCallArguments) and item.index in self._result:
                out.append(TextDelta(item.fragment))
            else:
                out.append(item)
        return tuple(out)

    def finish(self) -> LlmOutcome:
        return self._inner.finish()


def result_stream(decoder: StreamDecoder, request: LlmRequest, structured: Structured) -> StreamDecoder:
    """``decoder``, wrapped in a :class:`ResultStream` when ``request`` is asked for through the tool.

    Example:
        >>> from agentsm_fn.providers.openai_stream import OpenAiStreamDecoder
        >>> plain = OpenAiStreamDecoder(LlmRequest(model="", messages=()))
        >>> result_stream(plain, LlmRequest(model="", messages=()), "tool") is plain
        True
    """
    return ResultStream(decoder) if wants_tool(request, structured) else decoder
