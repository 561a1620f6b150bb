"""The experiments' views: what the page reads from the store's experiment rows, as JSON; an absent experiment
is a JSON 404; what a judge or a run wrote is redacted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.stores.protocol.experiments import ExperimentEntry, ExperimentRecord
from agentsm_fn.inspector import case_view, experiment_view, experiments_view
from agentsm_fn.server import create_app
from tests.durable.machines import DURABLE_ORDERS
from tests.inspector.experiments import PRICIER, stored_experiments


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as store:
        stored_experiments(store)
        app = create_app(store, [DURABLE_ORDERS, PRICIER])
        with TestClient(app, base_url="http://127.0.0.1") as served:
            yield served


def test_the_experiments_and_their_case_runs_are_served_as_json(client: TestClient) -> None:
    listed = client.get("/inspector/api/experiments").json()["experiments"]
    assert {(e["name"], e["cases"], e["runs"], e["passed"]) for e in listed} == {
        ("v1", 2, 2, 2),
        ("v2", 2, 2, 0),
    }
    v2 = client.get("/inspector/api/experiments/v2").json()
    assert (v2["evaluators"], v2["others"]) == (["equals expected", "no failure", "reached DONE"], ["v1"])
    two = next(r for r in v2["case_runs"] if r["case"] == "two")
    assert (two["passed"], round(two["score"], 2), two["status"]) == (False, 0.67, "finished")
    assert {
        "evaluator": "equals expected",
        "passed": False,
        "score": None,
        "label": None,
        "reason": "expected 21, got 41",
    } in two["grades"]
    case = client.get("/inspector/api/experiments/v1/v2/cases/two").json()
    assert [len(case[side]["runs"]) for side in ("a", "b")] == [1, 1]
    runs = [case[side]["runs"][0]["run_id"] for side in ("a", "b")]
    compared = client.get(f"/inspector/api/compare/{runs[0]}/{runs[1]}").json()
    assert compared["parted_at"] is None


def test_an_experiment_that_is_not_stored_is_a_json_404(client: TestClient) -> None:
    for path in ("/inspector/api/experiments/v9", "/inspector/api/experiments/v1/v9/cases/two"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["detail"].startswith("no experiment ")


def test_a_reason_holding_a_credential_is_redacted_and_a_result_that_is_not_json_is_an_error(
    tmp_path: Path,
) -> None:
    leaked = {
        "status": "finished",
        "passed": False,
        "score": 0.0,
        "grades": [
            {"evaluator": "judge", "passed": False, "reason": "Authorization: Bearer abcdefgh12345678"}
        ],
    }
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as store:
        store.open_experiment(
            ExperimentRecord(name="x", dataset="d", subject="app:A", fingerprint="f", repeats=1, created=1.0)
        ).unwrap()
        store.save_results(
            [
                ExperimentEntry(
                    experiment="x", case="c", repeat=0, run_id="r1", result=json.dumps(leaked), updated=1.0
                ),
                ExperimentEntry(
                    experiment="x", case="d", repeat=0, run_id="r2", result="{not json", updated=1.0
                ),
            ]
        ).unwrap()
        view: Any = experiment_view(store, "x").unwrap()
        assert experiments_view(store).unwrap()["experiments"][0]["passed"] == 0  # type: ignore[index, call-overload]
        assert case_view(store, "c", "x", "gone").unwrap() is None
    judged, broken = sorted(view["case_runs"], key=lambda r: r["case"])
    assert judged["grades"][0]["reason"] == "Authorization: Bearer [redacted]"
    assert (broken["error"], broken["passed"], broken["grades"]) == (
        "its stored result is not JSON",
        False,
        [],
    )
