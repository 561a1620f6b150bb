"""No framing, no sniffing, no referrer on any response; a browser's cross-site request reaches no route."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from agentsm_fn.inspector import ASSETS
from agentsm_fn.server import create_app
from agentsm_fn.server.headers import CONTENT_SECURITY_POLICY
from agentsm_fn.server.inspector import PAGE_PATHS
from tests.durable.machines import DURABLE_ORDERS
from tests.server.live import orders_store, serving

TOKEN = "t0ken-for-the-header-tests-123456"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    store = orders_store(tmp_path / "runs.db")
    with closing(store), serving(create_app(store, [DURABLE_ORDERS], token=TOKEN)) as url:
        yield url


def _routes(url: str) -> list[tuple[str, str]]:
    document = httpx.get(f"{url}/openapi.json", headers=AUTH).json()
    filled = {"{run_id}": "done-0", "{name}": DURABLE_ORDERS.name, "{seq}": "4"}
    filled |= {"{a}": "done-0", "{b}": "done-1"}
    routes = [("GET", "/"), ("GET", "/inspector/index.html"), ("GET", "/openapi.json")]
    for template, methods in document["paths"].items():
        path = template
        for placeholder, value in filled.items():
            path = path.replace(placeholder, value)
        routes += [(method.upper(), path) for method in methods]
    return routes


def _answer(method: str, url: str, headers: dict[str, str]) -> httpx.Response:
    """The response's status and headers (an event stream is closed once they are read)."""
    with httpx.stream(method, url, headers=headers, json={}, timeout=30) as answer:
        if answer.headers.get("content-type", "").startswith("application/json"):
            answer.read()
        return answer


def _shielded(answer: httpx.Response) -> bool:
    policy = answer.headers.get("content-security-policy", "")
    return (
        answer.headers.get("x-frame-options") == "DENY"
        and "frame-ancestors 'none'" in policy
        and answer.headers.get("x-content-type-options") == "nosniff"
        and answer.headers.get("referrer-policy") == "no-referrer"
    )


def test_every_response_forbids_framing_and_sniffing(served: str) -> None:
    routes = _routes(served)
    assert len(routes) >= 15
    for method, path in routes:
        answer = _answer(method, served + path, AUTH)
        assert _shielded(answer), (method, path, answer.status_code, answer.headers)
        refused = _answer(method, served + path, {})  # the Guard's 401 too (the page itself is public)
        assert refused.status_code == (200 if path in PAGE_PATHS else 401), (method, path)
        assert _shielded(refused), (method, path)
    page = httpx.get(f"{served}/", headers=AUTH)
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src 'self' 'wasm-unsafe-eval'" in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]


def test_a_cross_site_browser_request_reaches_no_route(served: str) -> None:
    for method, path in _routes(served):
        for headers in ({**AUTH, "Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "Cross-Site"}):
            answer = _answer(method, served + path, headers)
            assert answer.status_code == 403, (method, path)
            assert answer.json()["error"]["kind"] == "cross_site" and _shielded(answer)
    for site in ("same-origin", "same-site", "none"):
        allowed = httpx.get(f"{served}/runs", headers={**AUTH, "Sec-Fetch-Site": site})
        assert allowed.status_code == 200, site


def test_the_policy_allows_every_inline_handler_of_the_page() -> None:
    page = (ASSETS / "index.html").read_text()
    handlers = [html.unescape(code) for code in re.findall(r"\son[a-z]+=\"([^\"]*)\"", page)]
    assert "<script>" not in page and "<style" not in page  # inline blocks would need their own hashes
    for code in handlers:
        digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in CONTENT_SECURITY_POLICY, code
