"""A sentinel key never shows up: not in a repr, trace, journal, error message, log line or output."""

from __future__ import annotations

import logging
import pickle

import attrs
import httpx
import pytest

from agentsm_fn import Shell, StepClock, run
from agentsm_fn.llm import LlmFailure, LlmRequest, UserMessage
from agentsm_fn.providers import HttpProvider, Secret, anthropic_provider, ollama_provider, openai_provider
from tests.otel.spans import Traced, traced
from tests.providers.agent import MACHINE, S, memory, tool_performers
from tests.providers.conftest import Aimock, Sleeps, instant_transport

SENTINEL = "sk-SENTINEL-7f3a9c1e5b2d4680"


def _echoing_server(request: httpx.Request) -> httpx.Response:
    """A hostile server that echoes the credential back in its error message and headers."""
    key = request.headers.get("authorization", "") + request.headers.get("x-api-key", "")
    body = {"error": {"message": f"Incorrect API key provided: {key} ({SENTINEL[-10:]})", "type": "auth"}}
    return httpx.Response(401, json=body, headers={"x-echo": key})


def exported(tracing: Traced) -> str:
    """Every exported span (names, attributes, events, links, status, resource) and metric, as JSON text."""
    spans = [span.to_json() for span in tracing.spans()]
    data = tracing.reader.get_metrics_data()
    return "\n".join([*spans, data.to_json() if data is not None else ""])


def _everything_printed(provider: HttpProvider, *extra: object) -> str:
    t = provider.transport
    parts = [repr(provider), str(provider), repr(t), str(t), repr(t.secret), str(t.secret), *map(repr, extra)]
    return "\n".join(parts)


@pytest.mark.parametrize("factory", [openai_provider, anthropic_provider, ollama_provider])
def test_a_whole_agent_run_never_reveals_the_key(
    factory: object, aimock: Aimock, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    assert callable(factory)
    caplog.set_level(logging.DEBUG)  # httpx and httpcore log every request at DEBUG
    base = f"{aimock.base}/v1" if factory is openai_provider else aimock.base
    outputs: list[str] = []
    tracing = traced(capture_content=True)
    for question, stream in (
        ("What is the weather in Paris?", False),
        ("compare Paris and Rome", True),
        ("always 503", False),
    ):
        provider = factory(
            "m",
            base_url=base,
            stream=stream,
            env={"OPENAI_API_KEY": SENTINEL, "ANTHROPIC_API_KEY": SENTINEL, "OLLAMA_API_KEY": SENTINEL},
            transport=instant_transport(Sleeps()),
        )
        assert isinstance(provider, HttpProvider) and provider.transport.secret.reveal() == SENTINEL
        with provider:
            performers = provider.performers().merge(tool_performers())
            result = run(MACHINE, memory(question), Shell(performers, StepClock(), tracing.observer))
        snapshot = result.unwrap()
        assert snapshot.state in (S.DONE, S.FAILED)
        outputs += [
            _everything_printed(provider, snapshot, snapshot.memory, snapshot.journal),
            snapshot.trace.render(),
            repr(list(snapshot.journal)),
            snapshot.memory.error,
        ]
    captured = capsys.readouterr()
    outputs += [caplog.text, captured.out, captured.err, exported(tracing)]
    assert '"name": "chat"' in outputs[-1] and "http_status (503)" in outputs[-1]  # every run, failures too
    assert any("HTTP Request" in record.getMessage() for record in caplog.records), (
        "httpx logging was captured"
    )
    assert SENTINEL not in "\n".join(outputs)


@pytest.mark.parametrize("factory", [openai_provider, anthropic_provider])
def test_an_error_message_echoing_the_key_is_redacted(
    factory: object, caplog: pytest.LogCaptureFixture
) -> None:
    assert callable(factory)
    caplog.set_level(logging.DEBUG)
    client = httpx.Client(transport=httpx.MockTransport(_echoing_server))
    provider = factory("m", api_key=SENTINEL, base_url="http://peer.test", client=client, env={})
    assert isinstance(provider, HttpProvider)
    outcome = provider.complete(LlmRequest(model="m", messages=(UserMessage("hi"),)))
    assert isinstance(outcome, LlmFailure) and outcome.status == 401
    assert "Incorrect API key provided" in outcome.message
    text = "\n".join([outcome.message, outcome.describe(), repr(outcome), caplog.text])
    assert SENTINEL not in text and SENTINEL[-10:] not in text


def test_a_failure_quoting_another_credential_of_ours_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy_token = "prx-0a1b2c3d4e5f60718293"  # no token shape: only the environment rule catches it
    monkeypatch.setenv("CORP_PROXY_TOKEN", proxy_token)

    def refuse(request: httpx.Request) -> httpx.Response:
        if request.url.host == "down.test":
            raise httpx.ConnectError(f"proxy refused token {proxy_token}", request=request)
        body = {"error": {"message": f"proxy said no to {proxy_token}", "type": "auth"}}
        return httpx.Response(401, json=body)

    messages: list[str] = []
    for host in ("down.test", "up.test"):
        client = httpx.Client(transport=httpx.MockTransport(refuse))
        template = instant_transport(Sleeps(), max_retries=0)
        base = f"http://{host}"
        provider = openai_provider(
            "m", api_key=SENTINEL, base_url=base, client=client, transport=template, env={}
        )
        assert isinstance(provider, HttpProvider)
        outcome = provider.complete(LlmRequest(model="m", messages=(UserMessage("hi"),)))
        assert isinstance(outcome, LlmFailure)
        messages.append(outcome.message)
    assert messages == [
        "ConnectError: proxy refused token [redacted]",
        "proxy said no to [redacted]",
    ]


def test_secret_hides_in_repr_str_format_and_containers_and_survives_pickling() -> None:
    secret = Secret(SENTINEL)
    assert SENTINEL not in repr(secret) + str(secret) + f"{secret}" + repr([secret]) + repr({"k": secret})
    assert secret == Secret(SENTINEL) and secret != Secret("another")
    copy = pickle.loads(pickle.dumps(secret))
    assert copy.reveal() == SENTINEL and SENTINEL not in repr(copy)


@pytest.mark.parametrize("factory", [openai_provider, anthropic_provider, ollama_provider])
def test_the_react_agent_never_reveals_the_key(
    factory: object, aimock: Aimock, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentsm_fn.agents.react.result import ReactCompleted
    from agentsm_fn.shell.react_agent import AgentBuilder

    assert callable(factory)
    caplog.set_level(logging.DEBUG)
    base = f"{aimock.base}/v1" if factory is openai_provider else aimock.base
    env = {"OPENAI_API_KEY": SENTINEL, "ANTHROPIC_API_KEY": SENTINEL, "OLLAMA_API_KEY": SENTINEL}
    provider = factory("m", base_url=base, stream=True, env=env, transport=instant_transport(Sleeps()))
    assert isinstance(provider, HttpProvider)
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    agent = (
        AgentBuilder.new("What is the weather in Paris?").llm(provider).tool("get_weather", "w", schema, str)
    )
    built = agent.build().unwrap()
    with provider:
        done = built.run().unwrap()
    assert isinstance(done, ReactCompleted)
    tracing = traced(capture_content=True)  # content capture on: prompts, completions and tool data too
    with provider:
        traced_done = attrs.evolve(built, observer=tracing.observer).run().unwrap()
    assert isinstance(traced_done, ReactCompleted) and len(tracing.spans()) >= 3
    snapshot = done.snapshot
    captured = capsys.readouterr()
    text = "\n".join(
        [
            repr(built),
            repr(done),
            repr(snapshot),
            repr(snapshot.memory),
            snapshot.trace.render(),
            repr(list(snapshot.journal)),
            caplog.text,
            captured.out,
            captured.err,
            exported(tracing),
        ]
    )
    assert done.answer == "It is sunny in Paris."
    assert "It is sunny in Paris." in exported(tracing)  # the export holds the content, only not the key
    assert SENTINEL not in text
