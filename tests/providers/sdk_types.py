"""Validate the requests our clients sent (from aimock's journal) against the official SDK types.

The SDKs' request types are the published spec (Anthropic has no other). A
body passes when validating it loses nothing: pydantic drops unknown keys and
coerces wrong shapes, so ``validated == sent`` also catches extra or misspelt
fields. Iterables are validated lazily, so the result is forced first.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping

import pytest

pydantic = pytest.importorskip("pydantic", reason="the official SDKs (dev extra) validate requests")
openai_params = pytest.importorskip("openai.types.chat.completion_create_params")
anthropic_params = pytest.importorskip("anthropic.types.message_create_params")
ollama_types = pytest.importorskip("ollama._types")


def _force(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: _force(v) for k, v in value.items()}
    if value is None or isinstance(value, str | bytes | int | float | bool):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _force(dump(exclude_unset=True))
    if isinstance(value, Iterable):
        return [_force(v) for v in value]
    return value


def _typed_dict(kind: object) -> Callable[[dict[str, object]], object]:
    adapter = pydantic.TypeAdapter(kind)
    return lambda body: _force(adapter.validate_python(body))


def _model(kind: type) -> Callable[[dict[str, object]], object]:
    return lambda body: _force(kind.model_validate(body))  # type: ignore[attr-defined]  # a pydantic model class


VALIDATORS: dict[tuple[str, bool], Callable[[dict[str, object]], object]] = {
    ("/v1/chat/completions", False): _typed_dict(openai_params.CompletionCreateParamsNonStreaming),
    ("/v1/chat/completions", True): _typed_dict(openai_params.CompletionCreateParamsStreaming),
    ("/v1/messages", False): _typed_dict(anthropic_params.MessageCreateParamsNonStreaming),
    ("/v1/messages", True): _typed_dict(anthropic_params.MessageCreateParamsStreaming),
    ("/api/chat", False): _model(ollama_types.ChatRequest),
    ("/api/chat", True): _model(ollama_types.ChatRequest),
    ("/api/generate", False): _model(ollama_types.GenerateRequest),
    ("/api/generate", True): _model(ollama_types.GenerateRequest),
}


def assert_valid_request(path: str, body: dict[str, object]) -> None:
    """Fail unless ``body`` (as sent to ``path``) is exactly a valid SDK request."""
    sent = {k: v for k, v in body.items() if not k.startswith("_")}  # aimock adds _endpointType
    validate = VALIDATORS[(path, sent.get("stream") is True)]
    assert validate(sent) == sent, f"{path}: the SDK types dropped or changed fields of {sent}"


def assert_anthropic_turn_rules(body: dict[str, object]) -> None:
    """The rules the real Messages API enforces with a 400 and no test peer does."""
    messages = body["messages"]
    assert isinstance(messages, list) and messages
    roles = [m["role"] for m in messages]
    assert roles[0] == "user" and all(a != b for a, b in itertools.pairwise(roles)), roles
    for before, after in itertools.pairwise(messages):
        uses = [b["id"] for b in before["content"] if b["type"] == "tool_use"]
        if uses:
            head = after["content"][: len(uses)]
            assert [(b["type"], b["tool_use_id"]) for b in head] == [("tool_result", u) for u in uses]
            assert sum(b["type"] == "tool_result" for b in after["content"]) == len(uses)
