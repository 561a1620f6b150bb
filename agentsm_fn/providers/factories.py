"""Ready-made providers: OpenAI-compatible, Anthropic, Ollama, configured from arguments or the environment.

Keys and URLs come from arguments first, then the environment (``env`` defaults to
``os.environ``)::

    openai_provider     OPENAI_API_KEY,    OPENAI_BASE_URL   (default https://api.openai.com/v1)
    anthropic_provider  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (default https://api.anthropic.com)
    ollama_provider     OLLAMA_API_KEY,    OLLAMA_HOST       (default http://127.0.0.1:11434)

A compatible server (Groq, Together, vLLM, Ollama's ``/v1``) is ``openai_provider``
with its ``base_url`` (include the ``/v1`` part when the server has one).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

import attrs
import httpx

from agentsm_fn.providers.anthropic_codec import AnthropicCodec
from agentsm_fn.providers.codec import Codec
from agentsm_fn.providers.ollama_codec import OllamaCodec
from agentsm_fn.providers.openai_codec import OpenAiCodec
from agentsm_fn.providers.provider import EventSink, HttpProvider
from agentsm_fn.providers.retry import RetryPolicy
from agentsm_fn.providers.secrets import Secret, secret_from
from agentsm_fn.providers.structured import Structured
from agentsm_fn.providers.transport import Transport

__all__ = ["anthropic_provider", "ollama_provider", "openai_provider"]


def _missing_key(secret: Secret, base_url: str, key_required_at: tuple[str, str] | None) -> str:
    """A message when the vendor's own API is the target and no key was found; "" otherwise.

    ``key_required_at`` is (official host, environment variable). Compatible and local
    servers often need no key, so only the official host is checked.
    """
    if key_required_at is None:
        return ""
    official, variable = key_required_at
    if secret or not base_url.rstrip("/").startswith(official):
        return ""
    hint = "pass api_key=, set it, or point base_url at a server that needs no key"
    return f"{variable} is not set: {hint}"


def _provider(
    codec: Codec,
    base_url: str,
    secret: Secret,
    *,
    key_required_at: tuple[str, str] | None = None,
    policy: RetryPolicy | None,
    timeout: float,
    stream: bool,
    on_event: EventSink | None,
    client: httpx.Client | None,
    async_client: httpx.AsyncClient | None,
    transport: Transport | None,
) -> HttpProvider:
    template = transport or Transport(codec=codec, base_url=base_url)
    # ``transport`` is a template carrying injected sleep, clock and draw (tests) and connect timeout.
    base = attrs.evolve(
        template,
        codec=codec,
        base_url=base_url,
        secret=secret,
        policy=policy or template.policy,
        timeout=timeout,
    )
    return HttpProvider(
        base,
        client=client,
        async_client=async_client,
        stream=stream,
        on_event=on_event,
        missing_key=_missing_key(secret, base_url, key_required_at),
    )


def openai_provider(
    model: str = "",
    *,
    api_key: str | Secret | None = None,
    base_url: str | None = None,
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
    structured: Structured = "native",
    policy: RetryPolicy | None = None,
    timeout: float = 60.0,
    stream: bool = False,
    on_event: EventSink | None = None,
    client: httpx.Client | None = None,
    async_client: httpx.AsyncClient | None = None,
    transport: Transport | None = None,
    env: Mapping[str, str] | None = None,
) -> HttpProvider:
    """A Chat Completions provider (OpenAI or any compatible server).

    ``structured`` asks for a typed result with ``response_format`` (``"native"``) or a
    final-result tool (``"tool"``, for servers whose models ignore ``response_format`` with tools).

    Example:
        >>> p = openai_provider("llama-3.3-70b", api_key="gsk-1", base_url="https://api.groq.com/openai/v1")
        >>> p.transport.base_url, "gsk-1" in repr(p.transport)
        ('https://api.groq.com/openai/v1', False)
    """
    env = os.environ if env is None else env
    return _provider(
        OpenAiCodec(model=model, max_tokens_field=max_tokens_field, structured=structured),
        base_url or env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1",
        secret_from(api_key, env, "OPENAI_API_KEY"),
        key_required_at=("https://api.openai.com", "OPENAI_API_KEY"),
        policy=policy,
        timeout=timeout,
        stream=stream,
        on_event=on_event,
        client=client,
        async_client=async_client,
        transport=transport,
    )


def anthropic_provider(
    model: str = "",
    *,
    api_key: str | Secret | None = None,
    base_url: str | None = None,
    version: str = "2023-06-01",
    default_max_tokens: int = 4096,
    structured: Structured = "tool",
    policy: RetryPolicy | None = None,
    timeout: float = 60.0,
    stream: bool = False,
    on_event: EventSink | None = None,
    client: httpx.Client | None = None,
    async_client: httpx.AsyncClient | None = None,
    transport: Transport | None = None,
    env: Mapping[str, str] | None = None,
) -> HttpProvider:
    """An Anthropic Messages provider; ``version`` is the ``anthropic-version`` header.

    ``structured`` asks for a typed result with a final-result tool (``"tool"``) or the
    ``output_config`` JSON Schema format (``"native"``, on models that have structured outputs).

    Example:
        >>> anthropic_provider("claude-sonnet-4-5", api_key="k", env={}).transport.base_url
        'https://api.anthropic.com'
    """
    env = os.environ if env is None else env
    return _provider(
        AnthropicCodec(
            model=model, version=version, default_max_tokens=default_max_tokens, structured=structured
        ),
        base_url or env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com",
        secret_from(api_key, env, "ANTHROPIC_API_KEY"),
        key_required_at=("https://api.anthropic.com", "ANTHROPIC_API_KEY"),
        policy=policy,
        timeout=timeout,
        stream=stream,
        on_event=on_event,
        client=client,
        async_client=async_client,
        transport=transport,
    )


def ollama_provider(
    model: str = "",
    *,
    base_url: str | None = None,
    api_key: str | Secret | None = None,
    generate_for_schema: bool = True,
    structured: Structured = "native",
    policy: RetryPolicy | None = None,
    timeout: float = 300.0,
    stream: bool = False,
    on_event: EventSink | None = None,
    client: httpx.Client | None = None,
    async_client: httpx.AsyncClient | None = None,
    transport: Transport | None = None,
    env: Mapping[str, str] | None = None,
) -> HttpProvider:
    """An Ollama native provider (``/api/chat``, and ``/api/generate`` for structured output).

    ``structured`` asks for a typed result with ``format`` (``"native"``) or a final-result tool.

    Example:
        >>> ollama_provider("llama3.2", env={"OLLAMA_HOST": "http://gpu-box:11434"}).transport.base_url
        'http://gpu-box:11434'
    """
    env = os.environ if env is None else env
    host = base_url or env.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
    if "://" not in host:
        host = f"http://{host}"
    return _provider(
        OllamaCodec(model=model, generate_for_schema=generate_for_schema, structured=structured),
        host,
        secret_from(api_key, env, "OLLAMA_API_KEY"),
        policy=policy,
        timeout=timeout,
        stream=stream,
        on_event=on_event,
        client=client,
        async_client=async_client,
        transport=transport,
    )
