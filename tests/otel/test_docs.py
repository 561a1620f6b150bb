"""The README's five OTLP lines and docs/observability.md's examples run, exporting to a local collector.

The collector is an HTTP server on 127.0.0.1 in this process that accepts OTLP/HTTP protobuf
(as a real collector does); the examples run in a child process, since they install the
global tracer provider, with ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointing at it.
"""

from __future__ import annotations

import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "observability.md"
README = ROOT / "README.md"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


class Collector(http.server.ThreadingHTTPServer):
    """Receives OTLP/HTTP trace exports; ``spans`` holds every span received."""

    spans: list[Span]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/v1/traces":
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    self.server.spans.extend(scope.spans)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector(("127.0.0.1", 0), _Handler)
    server.spans = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _run(code: str, collector: Collector) -> None:
    host, port = collector.server_address[:2]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://{host!s}:{port}",
        "OTEL_SERVICE_NAME": "docs-test",
    }
    env.pop("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", None)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=120)


def test_the_readme_shows_the_five_otlp_lines_and_the_docs_use_the_same() -> None:
    (block,) = [b for b in python_blocks(README) if "OTLPSpanExporter" in b]
    lines = block.strip().splitlines()
    assert len(lines) == 5
    assert python_blocks(DOC)[0].startswith(block)


def test_the_readmes_five_lines_send_a_runs_trace_to_an_otlp_collector(collector: Collector) -> None:
    (block,) = [b for b in python_blocks(README) if "OTLPSpanExporter" in b]
    run_an_agent = """
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.llm import LlmReply
from agentsm_fn.otel import OtelObserver
from agentsm_fn.shell.scripted_llm import ScriptedLlm
agent = AgentBuilder.new("hi").llm(ScriptedLlm([LlmReply(content="Hello there, friend.")])).model("m")
agent.observe(OtelObserver()).build().unwrap().run().unwrap()
"""  # the process exits without a flush: the SDK's exit hook sends what the batch holds
    _run(block + run_an_agent, collector)
    names = sorted(span.name for span in collector.spans)
    assert names == ["chat m", "invoke_agent react"]


def test_the_docs_examples_run_and_the_resumed_run_links_to_the_first(collector: Collector) -> None:
    _run("\n".join(python_blocks(DOC)), collector)
    runs = [span for span in collector.spans if span.name == "invoke_agent react"]
    assert len(runs) == 3  # the first example's run, the suspended run, its continuation
    suspended = [
        s
        for s in runs
        if any(a.key == "agentsm.run.status" and a.value.string_value == "awaiting" for a in s.attributes)
    ]
    (resumed,) = [s for s in runs if s.links]
    assert len(suspended) == 1
    assert resumed.links[0].span_id == suspended[0].span_id
    assert resumed.links[0].trace_id == suspended[0].trace_id
    assert sorted(s.name for s in collector.spans if s.trace_id == resumed.trace_id) == [
        "chat",
        "execute_tool refund",
        "invoke_agent react",
    ]
