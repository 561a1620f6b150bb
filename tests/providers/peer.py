"""Providers pointed at the aimock peer, with the exact bytes they send captured for validation."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx

from agentsm_fn.providers import HttpProvider, anthropic_provider, ollama_provider, openai_provider
from tests.providers.conftest import Aimock, Sleeps, instant_transport
from tests.providers.openapi import assert_matches_spec
from tests.providers.sdk_types import assert_anthropic_turn_rules, assert_valid_request

PROVIDERS = ["openai", "anthropic", "ollama"]
KEY = "sk-aimock-test-key"


class Wire:
    """The exact request bodies our clients put on the wire (httpx request hooks)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, object]]] = []
        self.opened: list[httpx.Client] = []
        self.headers: list[dict[str, str]] = []

    def record(self, request: httpx.Request) -> None:
        body = json.loads(request.content)
        assert isinstance(body, dict)
        self.sent.append((request.url.path, body))
        self.headers.append(dict(request.headers))

    async def arecord(self, request: httpx.Request) -> None:
        self.record(request)

    def client(self) -> httpx.Client:
        client = httpx.Client(event_hooks={"request": [self.record]})
        self.opened.append(client)
        return client

    def async_client(self) -> httpx.AsyncClient:
        """A capturing async client; the test closes it (``async with``) on its own event loop."""
        return httpx.AsyncClient(event_hooks={"request": [self.arecord]})


WIRE: Wire = Wire()


def make(kind: str, aimock: Aimock, sleeps: Sleeps, *, stream: bool = False, **extra: object) -> HttpProvider:
    base = f"{aimock.base}/v1" if kind == "openai" else aimock.base
    extra = {"client": WIRE.client(), **extra}
    factories: dict[str, Callable[..., HttpProvider]] = {
        "openai": openai_provider,
        "anthropic": anthropic_provider,
        "ollama": ollama_provider,
    }
    factory = factories[kind]
    return factory(
        "test-model",
        api_key=KEY,
        base_url=base,
        stream=stream,
        transport=instant_transport(sleeps),
        env={},
        **extra,
    )


def requests_sent(aimock: Aimock) -> list[tuple[str, dict[str, object]]]:
    received = [e.get("path") for e in aimock.journal()]
    assert received == [path for path, _ in WIRE.sent], "aimock's journal and our wire capture disagree"
    return WIRE.sent


def validate_journal(aimock: Aimock) -> list[tuple[str, dict[str, object]]]:
    sent = requests_sent(aimock)
    assert sent, "nothing was sent"
    for path, body in sent:
        assert_valid_request(path, body)
        assert_matches_spec(path, body)
        if path == "/v1/messages":
            assert_anthropic_turn_rules(body)
    return sent
