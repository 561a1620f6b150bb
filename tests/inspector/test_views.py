"""The views the page is built from: changes rebuild every step's memory, compare finds where runs part."""

from __future__ import annotations

import importlib.util
import json
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn.durable import RunRecord, SqliteStore, StoreFailure
from agentsm_fn.durable.operations.forks import fork
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.inspector import apply_changes, changes, compare_views, plain, run_view
from agentsm_fn.inspector.compare import memories
from agentsm_fn.llm.json import JsonValue
from tests.inspector.machines import COUNTER, Count
from verification.kit import json_objects

ROOT = Path(__file__).resolve().parents[2]


@given(json_objects(), json_objects())
def test_changes_rebuild_the_later_memory_from_the_earlier(before: JsonValue, after: JsonValue) -> None:
    assert apply_changes(before, changes(before, after)) == after


@given(st.lists(st.integers(), max_size=6), st.lists(st.integers(), max_size=6))
def test_a_list_that_only_grew_is_sent_as_what_was_appended(old: list[int], added: list[int]) -> None:
    found = changes({"log": old}, {"log": old + added})
    assert found == ([{"field": "log", "append": added}] if added else [])


def test_every_step_of_a_run_is_its_replayed_memory(store: SqliteStore) -> None:
    COUNTER.start(store, Count(target=12), run_id="c").unwrap()
    view = run_view(store, COUNTER, store.get("c").unwrap())
    rebuilt = memories(view["steps"])  # type: ignore[arg-type]  # the view is JSON data
    assert sorted(rebuilt) == list(range(13))
    for step in (0, 3, 12):
        snap = replay_stored(store, COUNTER.machine, "c", step).unwrap()
        assert rebuilt[step] == (snap.state.name, rebuilt[step][1], plain(snap.memory))


def test_a_fork_and_its_parent_part_where_the_fork_changed_course(store: SqliteStore) -> None:
    COUNTER.start(store, Count(target=6), run_id="parent").unwrap()
    fork(
        store, COUNTER.machine, "parent", 2, COUNTER, lambda m: Count(target=3, n=m.n, seen=m.seen), "child"
    ).unwrap()
    views = [run_view(store, COUNTER, store.get(r).unwrap()) for r in ("parent", "child")]
    compared: Any = json.loads(json.dumps(compare_views(*views)))  # JSON data, read as a client reads it
    assert compared["parted_at"] == 3  # the child finishes at step 3, the parent counts on
    steps = {s["step"]: s for s in compared["steps"]}
    assert steps[2]["differs"] == [{"field": "target", "a": 6, "b": 3}]
    assert views[0]["forks"] == [{"run_id": "child", "step": 2, "status": "finished"}]


class _Unlisted(SqliteStore):
    """A store whose every-run read fails the test: a run's page must not need it."""

    def runs(self, unfinished_only: bool = False) -> Result[tuple[RunRecord, ...], StoreFailure]:
        raise AssertionError("the run page read every run")


def test_a_runs_page_lists_its_forks_newest_first_without_reading_every_run(tmp_path: Path) -> None:
    with closing(_Unlisted.open(tmp_path / "runs.db").unwrap()) as store:
        COUNTER.start(store, Count(target=6), run_id="parent").unwrap()
        COUNTER.start(store, Count(target=6), run_id="other").unwrap()
        for step, child in ((2, "first"), (4, "second")):
            fork(store, COUNTER.machine, "parent", step, COUNTER, lambda m: m, child).unwrap()
        fork(store, COUNTER.machine, "other", 1, COUNTER, lambda m: m, "elsewhere").unwrap()
        view = run_view(store, COUNTER, store.get("parent").unwrap())
        assert view["forks"] == [
            {"run_id": "second", "step": 4, "status": "finished"},
            {"run_id": "first", "step": 2, "status": "finished"},
        ]
        assert view["problem"] is None


def test_the_benchmark_runs(capsys: object) -> None:
    spec = importlib.util.spec_from_file_location("inspector_benchmark", ROOT / "benchmarks" / "inspector.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert (
        module.main(["--steps", "30", "--changes", "10", "--repeat", "1", "--runs", "60", "--turns", "20"])
        == 0
    )


def test_a_plan_and_execute_run_reads_as_a_conversation() -> None:
    from agentsm_fn.agents.plan_execute import PlanExecuteMemory, PlanExecuteToolResult, ToolBatch
    from agentsm_fn.agents.react import Rejected
    from agentsm_fn.inspector import transcript
    from agentsm_fn.llm import LlmReply, ToolCall

    lines = transcript(
        PlanExecuteMemory(input="find the pdf"),
        [
            (0, LlmReply(tool_calls=(ToolCall("c1", "search", {"query": "pdf"}),))),
            (1, ToolBatch((PlanExecuteToolResult(call_id="c1", name="search", content="3 hits"),))),
            (2, Rejected("not that one")),
            (3, LlmReply(content="It is report.pdf")),
        ],
    )
    assert lines is not None
    assert [(line["role"], line["text"]) for line in lines] == [
        ("user", "find the pdf"),
        ("assistant", ""),
        ("tool", "3 hits"),
        ("approval", "rejected: not that one"),
        ("assistant", "It is report.pdf"),
    ]
    assert lines[1]["calls"] == [{"id": "c1", "name": "search", "arguments": {"query": "pdf"}}]
