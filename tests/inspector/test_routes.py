"""The inspector's routes refuse what does not exist with the server's JSON errors, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from types import ModuleType
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, orders: ModuleType) -> Iterator[TestClient]:
    store = SqliteStore.open(tmp_path_factory.mktemp("routes") / "runs.db").unwrap()
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    with (
        closing(store),
        TestClient(create_app(store, [orders.ORDERS]), base_url="http://127.0.0.1") as served,
    ):
        yield served


def test_the_page_and_its_files_are_served_with_their_types(client: TestClient) -> None:
    assert client.get("/").headers["content-type"].startswith("text/html")
    assert client.get("/inspector/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/inspector/app.css").headers["content-type"].startswith("text/css")
    assert client.get("/inspector/api/runs/o-1").json()["run"]["status"] == "finished"


def test_a_page_file_the_browser_holds_is_not_sent_again(client: TestClient) -> None:
    first = client.get("/inspector/app.js")
    etag = first.headers["etag"]
    assert first.headers["cache-control"] == "no-cache" and first.content
    again = client.get("/inspector/app.js", headers={"if-none-match": f'"other", {etag}'})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    stale = client.get("/inspector/app.js", headers={"if-none-match": '"not-this-one"'})
    assert stale.status_code == 200 and stale.content == first.content
    assert client.get("/inspector/app.css").headers["etag"] != etag
    assert client.get("/", headers={"if-none-match": client.get("/").headers["etag"]}).status_code == 304


names = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=30).filter(
    lambda n: (
        n not in {"index.html", "app.js", "app.css", "LICENSES.txt", ".", ".."}
    )  # dots: the URL is normalised
)


@settings(max_examples=60, deadline=None)
@given(name=names)
def test_anything_else_is_a_json_404(client: TestClient, name: str) -> None:
    for path in (
        "/inspector/",
        "/inspector/api/runs/",
        "/inspector/api/machines/",
        "/inspector/api/compare/o-1/",
    ):
        response = client.get(path + quote(name, safe=""))
        assert response.status_code == 404, (path, name, response.status_code)
        assert response.json()["error"]["detail"]
