"""Safe by default: tokens, Host names, JSON-only POSTs, body limits, redaction, typed 4xx for bad input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.inspector import ASSETS
from agentsm_fn.server import create_app
from agentsm_fn.server.inspector import PAGE_PATHS
from agentsm_fn.server.serve import serve_runs
from agentsm_fn.shell import Shell, StepClock
from tests.durable.machines import DURABLE_ORDERS, ORDERS, Charge, Lookup, Order
from tests.durable.stores import execute
from tests.server.live import orders_store, serving

TOKEN = "t0ken-for-the-tests-1234567890"
SECRET = "sk-" + "s3cretvalue" * 3

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(orders_store(tmp_path / "runs.db")) as opened:
        yield opened


@pytest.fixture
def guarded(store: SqliteStore) -> Iterator[str]:
    with serving(create_app(store, [DURABLE_ORDERS], token=TOKEN, max_body=4096)) as url:
        yield url


def _routes(url: str) -> list[tuple[str, str]]:
    document = httpx.get(f"{url}/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    filled = {"{run_id}": "done-0", "{name}": DURABLE_ORDERS.name, "{seq}": "4"}
    routes = []
    for template, methods in document["paths"].items():
        path = template
        for placeholder, value in filled.items():
            path = path.replace(placeholder, value)
        routes += [(method.upper(), path) for method in methods]
    return [*routes, ("GET", "/openapi.json")]


def test_with_a_token_every_route_needs_it(guarded: str, store: SqliteStore) -> None:
    before = store.runs().unwrap()
    routes = _routes(guarded)
    assert len(routes) >= 13
    for headers in (
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": TOKEN},
        {"Authorization": f"Basic {TOKEN}"},
    ):
        for method, path in routes:
            answer = httpx.request(method, guarded + path, headers=headers, json={})
            assert answer.status_code == 401, (method, path, headers)
            assert answer.json()["error"]["kind"] == "unauthorized" and TOKEN not in answer.text
            assert answer.headers["www-authenticate"].startswith("Bearer "), (method, path)
    assert store.runs().unwrap() == before
    right = httpx.get(f"{guarded}/runs", headers={"Authorization": f"Bearer {TOKEN}"})
    assert right.status_code == 200 and len(right.json()["runs"]) == 3


def test_without_a_token_only_localhost_names_are_answered(store: SqliteStore) -> None:
    with serving(create_app(store, [DURABLE_ORDERS])) as url:
        assert httpx.get(f"{url}/runs").status_code == 200
        port = url.rsplit(":", 1)[1]
        for host in (f"localhost:{port}", f"[::1]:{port}", "127.0.0.1"):
            assert httpx.get(f"{url}/runs", headers={"Host": host}).status_code == 200, host
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
            refused = httpx.get(f"{url}/runs", headers={"Host": host})
            assert refused.status_code == 403 and refused.json()["error"]["kind"] == "forbidden_host", host


def test_a_form_post_from_another_site_cannot_act(store: SqliteStore) -> None:
    before = store.runs().unwrap()
    with serving(create_app(store, [DURABLE_ORDERS])) as url:
        for content_type in (
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "text/plain",
        ):
            answer = httpx.post(
                f"{url}/runs/wait-0/pending/4/answer",
                content=b'{"decision": "approve"}',
                headers={"Content-Type": content_type},
            )
            assert answer.status_code == 415 and answer.json()["error"]["kind"] == "json_only"
        assert httpx.get(f"{url}/runs/wait-0/answer").status_code in (404, 405)  # no GET changes anything
    assert store.runs().unwrap() == before


def test_bodies_over_the_limit_are_refused_declared_or_streamed(guarded: str, store: SqliteStore) -> None:
    before = store.runs().unwrap()
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    big = json.dumps({"machine": DURABLE_ORDERS.name, "memory": {"items": 1, "pad": "x" * 5000}}).encode()
    declared = httpx.post(f"{guarded}/runs", content=big, headers=auth)
    assert declared.status_code == 413 and declared.json()["error"]["kind"] == "body_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the size shows only while it is read
        yield from (big[i : i + 1000] for i in range(0, len(big), 1000))

    streamed = httpx.post(f"{guarded}/runs", content=chunks(), headers=auth)
    assert streamed.status_code == 413
    assert store.runs().unwrap() == before


def test_other_addresses_are_refused_without_a_token(
    store: SqliteStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert serve_runs(store, [DURABLE_ORDERS], host="0.0.0.0") == 2
    assert serve_runs(store, [DURABLE_ORDERS], host="192.168.1.10") == 2
    assert "refusing to serve on 0.0.0.0 without a token" in capsys.readouterr().err


def test_a_short_token_is_refused_at_startup(store: SqliteStore, capsys: pytest.CaptureFixture[str]) -> None:
    for short in ("q", "z" * 15):
        assert serve_runs(store, [DURABLE_ORDERS], host="0.0.0.0", token=short) == 2
        said = capsys.readouterr().err
        assert "at least 16 characters" in said and short not in said


def test_no_stored_secret_reaches_a_response(tmp_path: Path) -> None:
    from agentsm_fn.shell import Performers

    def leaky() -> Shell:
        performers = Performers().on(Lookup, lambda e: 10).on(Charge, lambda e: f"receipt {SECRET}")
        return Shell(performers, StepClock(start=1000.0))

    durable = Durable(name=DURABLE_ORDERS.name, machine=ORDERS, shell=leaky)
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    durable.start(store, Order(items=2), run_id="leaky").unwrap()
    with serving(create_app(store, [durable])) as url:
        for path in ("/runs/leaky", "/runs/leaky/trace", "/runs/leaky/journal", "/runs/leaky/state", "/runs"):
            answer = httpx.get(url + path)
            assert answer.status_code == 200 and SECRET not in answer.text, path
        assert "[redacted]" in httpx.get(f"{url}/runs/leaky/state").text


def test_a_waiting_effects_summary_is_redacted_in_the_run_and_the_pending_list(tmp_path: Path) -> None:
    store = orders_store(tmp_path / "runs.db")
    leaked = f"Ask {SECRET}"
    execute(store.path, "UPDATE journal SET summary = ? WHERE run_id = 'wait-0' AND seq = 4", (leaked,))
    with closing(store), serving(create_app(store, [DURABLE_ORDERS])) as url:
        run, listed = httpx.get(f"{url}/runs/wait-0"), httpx.get(f"{url}/pending")
    assert SECRET not in run.text and SECRET not in listed.text
    assert run.json()["pending"]["summary"] == listed.json()[0]["summary"] == "Ask [redacted]"


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, SqliteStore]]:
    store = orders_store(tmp_path_factory.mktemp("hyp") / "runs.db")
    with (
        closing(store),
        serving(create_app(store, [DURABLE_ORDERS])) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        yield client, store


def _is_json_error(answer: httpx.Response) -> bool:
    body = answer.json()
    return (
        set(body) == {"error"} and set(body["error"]) == {"kind", "detail"} and "Traceback" not in answer.text
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=json_values,
    path=st.sampled_from(["/runs", "/runs/done-0/fork", "/runs/wait-0/pending/4/answer", "/recover"]),
)
def test_any_json_body_gets_a_typed_answer_never_a_500(
    app_client: tuple[httpx.Client, SqliteStore], body: object, path: str
) -> None:
    client, store = app_client
    before = store.runs().unwrap()
    answer = client.post(path, json=body)
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        assert _is_json_error(answer)
        assert store.runs().unwrap() == before  # a refused request writes nothing


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200))
def test_any_bytes_as_a_body_get_a_typed_answer(
    app_client: tuple[httpx.Client, SqliteStore], raw: bytes
) -> None:
    client, store = app_client
    before = store.runs().unwrap()
    answer = client.post("/runs", content=raw, headers={"Content-Type": "application/json"})
    assert answer.status_code in (400, 422) and _is_json_error(answer)
    assert store.runs().unwrap() == before


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    params=st.dictionaries(
        st.sampled_from(["status", "machine", "limit", "cursor", "step", "other"]),
        st.text(max_size=30),
        max_size=4,
    ),
    path=st.sampled_from(["/runs", "/runs/done-0/state", "/pending", "/machines"]),
)
def test_any_query_string_gets_a_typed_answer(
    app_client: tuple[httpx.Client, SqliteStore], params: dict[str, str], path: str
) -> None:
    client, _ = app_client
    answer = client.get(path, params=params)
    assert answer.status_code < 500, answer.text
    assert answer.status_code in (200, 404, 422)
    if answer.status_code >= 400:
        assert _is_json_error(answer)


def test_with_a_token_only_the_inspector_page_and_its_files_are_served_without_it(guarded: str) -> None:
    shipped = {f"/inspector/{item.name}" for item in ASSETS.iterdir() if item.is_file()}
    assert {"/", *shipped} == PAGE_PATHS  # every file of the page, and nothing else
    for path in sorted(PAGE_PATHS):
        assert httpx.get(guarded + path).status_code == 200, path
        assert httpx.post(guarded + path, json={}).status_code == 401, path
    for path in ("/inspector/api/runs/done-0", "/inspector/nothing.js", "/inspector/../runs", "//runs"):
        assert httpx.get(guarded + path).status_code == 401, path


def test_a_credential_shaped_run_id_is_refused_and_nothing_is_stored(
    guarded: str, store: SqliteStore
) -> None:
    before = store.runs().unwrap()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for path, body in (
        ("/runs", {"machine": DURABLE_ORDERS.name, "memory": {"items": 2}, "run_id": SECRET}),
        ("/runs/done-0/fork", {"step": 1, "run_id": SECRET}),
    ):
        answer = httpx.post(guarded + path, json=body, headers=auth)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["kind"] == "credential_run_id" and SECRET not in answer.text
    assert store.runs().unwrap() == before
