"""Folding Ollama NDJSON: one JSON object per line, the last with ``done: true``.

A one-shot (``stream: false``) reply is the same fold over a single object.
Tool calls arrive whole (arguments as an object, or a JSON string on some
servers); an ``{"error": ...}`` line can arrive under status 200.
"""

from __future__ import annotations

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.json import dumps, freeze
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers._wire import as_int, as_list, as_object, as_str, parse_object
from agentsm_fn.providers.codec import Draft, assemble, malformed, number_list
from agentsm_fn.providers.events import StreamEvent, TextDelta, ToolCallArguments, ToolCallStarted
from agentsm_fn.providers.openai_codec import error_text

__all__ = ["OllamaStreamDecoder", "chunk_failure", "decode_final"]


def chunk_failure(chunk: dict[str, object]) -> LlmFailure | None:
    """The STREAM_ERROR in an ``{"error": ...}`` object (either shape), else None.

    Example:
        >>> chunk_failure({"error": "model 'x' not found"}).message
        "model 'x' not found"
    """
    if chunk.get("error") is None:
        return None
    return LlmFailure(kind=LlmFailureKind.STREAM_ERROR, message=error_text(chunk), provider="ollama")


def _calls(chunk: dict[str, object], start: int) -> list[tuple[str, str, object]]:
    message = as_object(chunk.get("message")) or {}
    calls: list[tuple[str, str, object]] = []
    for raw in as_list(message.get("tool_calls")):
        call = as_object(raw) or {}
        function = as_object(call.get("function")) or {}
        call_id = as_str(call.get("id")) or f"ollama_call_{start + len(calls)}"
        calls.append((call_id, as_str(function.get("name")), function.get("arguments")))
    return calls


def _text(chunk: dict[str, object], *, generate: bool) -> str:
    if generate:
        return as_str(chunk.get("response"))
    return as_str((as_object(chunk.get("message")) or {}).get("content"))


def decode_final(request: LlmRequest, chunks: list[dict[str, object]], *, generate: bool) -> LlmOutcome:
    """The outcome of a whole reply given as its chunks (one chunk when not streamed).

    Example:
        >>> req = LlmRequest(model="m", messages=())
        >>> chunk = {"message": {"content": "hi"}, "done": True, "done_reason": "stop", "eval_count": 2}
        >>> decode_final(req, [chunk], generate=False).usage.output_tokens
        2
    """
    if not chunks or chunks[-1].get("done") is not True:
        return malformed("ollama", "reply has no final object with done: true")
    if not generate and not all(isinstance(c.get("message"), dict) for c in chunks):
        return malformed("ollama", "chat reply without a message object")
    calls: list[tuple[str, str, object]] = []
    for chunk in chunks:
        calls.extend(_calls(chunk, len(calls)))
    last = chunks[-1]
    reason = as_str(last.get("done_reason"))
    draft = Draft(
        content="".join(_text(c, generate=generate) for c in chunks),
        calls=tuple(calls),
        finish_reason=reason,
        truncated=reason == "length",
        input_tokens=as_int(last.get("prompt_eval_count")),
        output_tokens=as_int(last.get("eval_count")),
        logprobs=tuple(lp for c in chunks for lp in number_list(c.get("logprobs"))),
        model=as_str(last.get("model")),
    )
    return assemble("ollama", request, draft)


class OllamaStreamDecoder:
    """A deterministic accumulator for one NDJSON reply (one per stream).

    Example:
        >>> d = OllamaStreamDecoder(LlmRequest(model="m", messages=()), generate=False)
        >>> d.feed("", '{"message": {"role": "assistant", "content": "Hi"}, "done": false}')
        (TextDelta(text='Hi'),)
        >>> d.feed("", '{"message": {"role": "assistant", "content": ""}, "done": true}')
        ()
        >>> d.done, d.finish().content
        (True, 'Hi')
    """

    def __init__(self, request: LlmRequest, *, generate: bool) -> None:
        self._request = request
        self._generate = generate
        self._chunks: list[dict[str, object]] = []
        self._calls = 0
        self._failure: LlmFailure | None = None
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    def feed(self, event: str, data: str) -> tuple[StreamEvent, ...]:
        if self._done or not data.strip():
            return ()
        chunk = parse_object(data)
        failure = (
            malformed("ollama", "stream line is not a JSON object") if chunk is None else chunk_failure(chunk)
        )
        if failure is not None or chunk is None:
            self._failure, self._done = failure, True
            return ()
        self._chunks.append(chunk)
        out: list[StreamEvent] = []
        text = _text(chunk, generate=self._generate)
        if text:
            out.append(TextDelta(text))
        for call_id, name, arguments in _calls(chunk, self._calls):
            out.append(ToolCallStarted(self._calls, call_id, name))
            out.append(ToolCallArguments(self._calls, _arguments_text(arguments)))
            self._calls += 1
        self._done = chunk.get("done") is True
        return tuple(out)

    def finish(self) -> LlmOutcome:
        if self._failure is not None:
            return self._failure
        if not self._done:
            return LlmFailure(
                kind=LlmFailureKind.CONNECTION, message="stream ended before done: true", provider="ollama"
            )
        return decode_final(self._request, self._chunks, generate=self._generate)


def _arguments_text(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    try:
        return dumps(freeze(arguments))
    except (TypeError, RecursionError):
        return ""
