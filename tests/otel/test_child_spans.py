"""A child run's spans nest under its parent's child-run effect span: in process, and through the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from agentsm_fn import run
from agentsm_fn.durable import SqliteStore
from tests.otel.teams_traced import PARENT_TRACED, TRACING, in_process_shell
from tests.teams.programs import Boss, P

NESTED = (
    "invoke_agent teams-delegator",
    (("ChildRun", (("invoke_agent teams-child", (("Note", ()),)),)),),
)


def test_in_process_the_childs_run_span_is_under_the_effect_span() -> None:
    TRACING.exporter.clear()
    assert run(PARENT_TRACED.machine, Boss(n=2), in_process_shell()).unwrap().state is P.DONE
    assert TRACING.trees() == [NESTED]


def test_through_the_store_the_child_nests_under_the_effect_that_started_it(store: SqliteStore) -> None:
    TRACING.exporter.clear()
    PARENT_TRACED.start(store, Boss(n=2), run_id="boss").unwrap()  # the child runs inline, from the store
    saved = dict(store.trace_context("boss.c0").unwrap())
    effect = TRACING.named("ChildRun")[0]  # the request (the resumed parent asks again and finds its outcome)
    assert effect.context is not None and f"{effect.context.span_id:016x}" in saved["traceparent"]
    first, resumed = TRACING.trees()
    assert first == NESTED
    assert resumed == (
        "invoke_agent teams-delegator",
        (("ChildRun", ()),),
    )  # resumed with the child's outcome


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened
