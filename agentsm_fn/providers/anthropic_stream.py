"""Folding a Messages SSE stream: named events, content blocks by index, errors after a 200.

``message_start`` gives model and input usage; ``content_block_start`` opens a
text or ``tool_use`` block; ``content_block_delta`` carries ``text_delta`` or
``input_json_delta.partial_json`` (the first piece is often ``""``);
``message_delta`` gives ``stop_reason`` and output usage; ``message_stop`` ends
it; ``ping`` can come anywhere; ``error`` can come after the 200.
"""

from __future__ import annotations

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers._wire import as_int, as_object, as_str, parse_object
from agentsm_fn.providers.codec import Draft, assemble, malformed
from agentsm_fn.providers.events import StreamEvent, TextDelta, ToolCallArguments, ToolCallStarted

__all__ = ["TRUNCATING_STOPS", "AnthropicStreamDecoder", "input_tokens"]

TRUNCATING_STOPS = frozenset({"max_tokens", "model_context_window_exceeded"})
"""Stop reasons that mean the output was cut."""


def input_tokens(usage: dict[str, object]) -> int:
    """Input tokens including cache reads and writes.

    Example:
        >>> input_tokens({"input_tokens": 5, "cache_read_input_tokens": 10})
        15
    """
    return sum(
        as_int(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )


class AnthropicStreamDecoder:
    """A deterministic accumulator for one streamed Messages reply (one per stream).

    Example:
        >>> d = AnthropicStreamDecoder(LlmRequest(model="m", messages=()))
        >>> d.feed("content_block_start", '{"index":0,"content_block":{"type":"text","text":""}}')
        ()
        >>> d.feed("content_block_delta", '{"index":0,"delta":{"type":"text_delta","text":"Hi"}}')
        (TextDelta(text='Hi'),)
        >>> _ = d.feed("message_delta", '{"delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}')
        >>> _ = d.feed("message_stop", "{}")
        >>> d.done, d.finish().content
        (True, 'Hi')
    """

    def __init__(self, request: LlmRequest) -> None:
        self._request = request
        self._text: list[str] = []
        self._calls: dict[int, tuple[int, str, str]] = {}  # block index -> (ordinal, id, name)
        self._arguments: dict[int, list[str]] = {}
        self._inputs: dict[int, object] = {}  # a server may send the whole input at block start
        self._stop = ""
        self._explanation = ""
        self._input = 0
        self._output = 0
        self._model = ""
        self._id = ""
        self._failure: LlmFailure | None = None
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    def feed(self, event: str, data: str) -> tuple[StreamEvent, ...]:
        if self._done:
            return ()
        obj = parse_object(data)
        if obj is None:
            return self._fail(malformed("anthropic", "stream event is not a JSON object"))
        kind = event or as_str(obj.get("type"))
        index = as_int(obj.get("index"))
        if kind == "message_start":
            message = as_object(obj.get("message")) or {}
            usage = as_object(message.get("usage")) or {}
            self._model = as_str(message.get("model"))
            self._id = as_str(message.get("id"))
            self._input = input_tokens(usage)
            self._output = as_int(usage.get("output_tokens"))
        elif kind == "content_block_start":
            return self._start(index, as_object(obj.get("content_block")) or {})
        elif kind == "content_block_delta":
            return self._delta(index, as_object(obj.get("delta")) or {})
        elif kind == "message_delta":
            delta = as_object(obj.get("delta")) or {}
            self._stop = as_str(delta.get("stop_reason"), self._stop)
            self._explanation = as_str((as_object(delta.get("stop_details")) or {}).get("explanation"))
            usage = as_object(obj.get("usage")) or {}
            self._output = as_int(usage.get("output_tokens")) or self._output
        elif kind == "message_stop":
            self._done = True
        elif kind == "error":
            err = as_object(obj.get("error")) or {}
            text = ": ".join(p for p in (as_str(err.get("type")), as_str(err.get("message"))) if p)
            failure = LlmFailure(
                kind=LlmFailureKind.STREAM_ERROR, message=text or "error in stream", provider="anthropic"
            )
            return self._fail(failure)
        return ()

    def _start(self, index: int, block: dict[str, object]) -> tuple[StreamEvent, ...]:
        if block.get("type") == "text":
            text = as_str(block.get("text"))
            if text:
                self._text.append(text)
                return (TextDelta(text),)
        elif block.get("type") == "tool_use":
            ordinal = len(self._calls)
            call_id, name = as_str(block.get("id")), as_str(block.get("name"))
            self._calls[index] = (ordinal, call_id, name)
            self._arguments[index] = []
            self._inputs[index] = block.get("input")
            return (ToolCallStarted(ordinal, call_id, name),)
        return ()

    def _delta(self, index: int, delta: dict[str, object]) -> tuple[StreamEvent, ...]:
        if delta.get("type") == "text_delta":
            text = as_str(delta.get("text"))
            self._text.append(text)
            return (TextDelta(text),) if text else ()
        if delta.get("type") == "input_json_delta" and index in self._calls:
            fragment = as_str(delta.get("partial_json"))
            self._arguments[index].append(fragment)
            return (ToolCallArguments(self._calls[index][0], fragment),) if fragment else ()
        return ()

    def _arguments_of(self, index: int) -> object:
        streamed = "".join(self._arguments[index])
        return streamed if streamed.strip() else self._inputs.get(index)

    def _fail(self, failure: LlmFailure) -> tuple[StreamEvent, ...]:
        self._failure = failure
        self._done = True
        return ()

    def finish(self) -> LlmOutcome:
        if self._failure is not None:
            return self._failure
        if not self._done and not self._stop:  # message_delta carries everything message_stop would
            return LlmFailure(
                kind=LlmFailureKind.CONNECTION,
                message="stream ended before message_stop",
                provider="anthropic",
            )
        text = "".join(self._text)
        draft = Draft(
            content=text,
            calls=tuple(
                (call_id, name, self._arguments_of(i))
                for i, (_, call_id, name) in sorted(self._calls.items())
            ),
            finish_reason=self._stop,
            truncated=self._stop in TRUNCATING_STOPS,
            refusal=(self._explanation or text or "refusal") if self._stop == "refusal" else None,
            input_tokens=self._input,
            output_tokens=self._output,
            model=self._model,
            response_id=self._id,
        )
        return assemble("anthropic", self._request, draft)
