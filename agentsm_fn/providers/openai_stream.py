"""Folding a Chat Completions SSE stream into text deltas, tool-call fragments and an outcome.

Tool-call fragments are keyed by ``delta.tool_calls[].index``: the first carries
id and name, the rest only argument pieces, concatenated per index. A final chunk
with ``"choices": []`` carries usage; ``data: [DONE]`` ends the stream; a ``data``
object with an ``error`` key is an error that arrived after the 200.
"""

from __future__ import annotations

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers._wire import as_int, as_list, as_object, as_str, parse_object
from agentsm_fn.providers.codec import Draft, assemble, malformed, number_list
from agentsm_fn.providers.events import StreamEvent, TextDelta, ToolCallArguments, ToolCallStarted

__all__ = ["OpenAiStreamDecoder"]


class _Slot:
    __slots__ = ("arguments", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments: list[str] = []


class OpenAiStreamDecoder:
    """A deterministic accumulator for one streamed Chat Completion (one per stream).

    Example:
        >>> d = OpenAiStreamDecoder(LlmRequest(model="m", messages=()))
        >>> d.feed("", '{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}')
        (TextDelta(text='Hi'),)
        >>> d.feed("", "[DONE]"), d.done, d.finish().content
        ((), True, 'Hi')
    """

    def __init__(self, request: LlmRequest) -> None:
        self._request = request
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._slots: dict[int, _Slot] = {}
        self._finish = ""
        self._usage: dict[str, object] = {}
        self._logprobs: list[float] = []
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
        if data.strip() == "[DONE]":
            self._done = True
            return ()
        chunk = parse_object(data)
        if chunk is None:
            return self._fail(malformed("openai", "stream chunk is not a JSON object"))
        if chunk.get("error") is not None:
            err = as_object(chunk.get("error")) or {}
            message = as_str(err.get("message")) or as_str(chunk.get("error")) or "error in stream"
            return self._fail(
                LlmFailure(kind=LlmFailureKind.STREAM_ERROR, message=message, provider="openai")
            )
        self._model = as_str(chunk.get("model"), self._model)
        self._id = as_str(chunk.get("id"), self._id)
        usage = as_object(chunk.get("usage"))
        if usage is not None:
            self._usage = usage
        out: list[StreamEvent] = []
        for raw_choice in as_list(chunk.get("choices")):
            choice = as_object(raw_choice)
            if choice is None or as_int(choice.get("index")) != 0:
                continue
            out.extend(self._delta(as_object(choice.get("delta")) or {}))
            self._finish = as_str(choice.get("finish_reason"), self._finish)
            self._logprobs.extend(number_list((as_object(choice.get("logprobs")) or {}).get("content")))
        return tuple(out)

    def _delta(self, delta: dict[str, object]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        text = as_str(delta.get("content"))
        if text:
            self._text.append(text)
            out.append(TextDelta(text))
        self._refusal.append(as_str(delta.get("refusal")))
        for position, raw in enumerate(as_list(delta.get("tool_calls"))):
            part = as_object(raw) or {}
            index = part.get("index")
            key = index if isinstance(index, int) and not isinstance(index, bool) else position
            function = as_object(part.get("function")) or {}
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot(as_str(part.get("id")), as_str(function.get("name")))
                out.append(ToolCallStarted(key, slot.id, slot.name))
            fragment = as_str(function.get("arguments"))
            if fragment:
                slot.arguments.append(fragment)
                out.append(ToolCallArguments(key, fragment))
        return out

    def _fail(self, failure: LlmFailure) -> tuple[StreamEvent, ...]:
        self._failure = failure
        self._done = True
        return ()

    def finish(self) -> LlmOutcome:
        if self._failure is not None:
            return self._failure
        if not self._done and not self._finish:
            return LlmFailure(
                kind=LlmFailureKind.CONNECTION,
                message="stream ended before the final event",
                provider="openai",
            )
        refusal = "".join(self._refusal)
        draft = Draft(
            content="".join(self._text),
            calls=tuple((s.id, s.name, "".join(s.arguments)) for _, s in sorted(self._slots.items())),
            finish_reason=self._finish,
            truncated=self._finish == "length",
            refusal=refusal or ("content filtered" if self._finish == "content_filter" else None),
            input_tokens=as_int(self._usage.get("prompt_tokens")),
            output_tokens=as_int(self._usage.get("completion_tokens")),
            logprobs=tuple(self._logprobs),
            model=self._model,
            response_id=self._id,
        )
        return assemble("openai", self._request, draft)
