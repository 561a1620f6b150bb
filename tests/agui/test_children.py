"""A parent served over AG-UI (the official client) runs its child and grandchild: steps named for them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from returns.result import Success

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.agui import AguiAgent
from tests.agui.conftest import Lines, Served
from tests.inspector.teams import GRAND
from tests.teams.programs import Boss

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]
Client = Callable[[Mapping[str, object]], Lines]

GRAND_AGUI: AguiAgent[Any, Any, Boss] = AguiAgent(durable=GRAND, memory=lambda request: Success(Boss(n=1)))


def test_a_childs_steps_are_nested_steps_named_for_it(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    served = serve([GRAND_AGUI])
    plan = {
        "url": served.url(f"/agui/{GRAND.name}"),
        "threadId": "team",
        "messages": [{"id": "u", "role": "user", "content": "go"}],
        "runs": [{"runId": "g-1"}],
    }
    events = [line["event"] for line in client(plan) if "event" in line]
    steps = [(e["type"], e["stepName"]) for e in events if e["type"].startswith("STEP_")]
    assert steps[0] == ("STEP_STARTED", "ASK") and events[-1]["type"] == "RUN_FINISHED"
    child = [s for s in steps if s[1].startswith("g-1.c0/")]
    assert child[0] == ("STEP_STARTED", "g-1.c0/ASK") and child[-1] == ("STEP_FINISHED", "g-1.c0/DONE")
    grandchild = [s for s in steps if s[1].startswith("g-1.c0.c0/")]
    assert grandchild == [
        ("STEP_STARTED", "g-1.c0.c0/WORK"),
        ("STEP_FINISHED", "g-1.c0.c0/WORK"),
        ("STEP_STARTED", "g-1.c0.c0/DONE"),
        ("STEP_FINISHED", "g-1.c0.c0/DONE"),
    ]
    ask_ends = steps.index(("STEP_FINISHED", "ASK"))  # the parent's step stays open around its children
    assert ask_ends > steps.index(child[-1]) and ask_ends > steps.index(grandchild[-1])
    assert steps[ask_ends + 1] == ("STEP_STARTED", "DONE")  # and goes on with its child's outcome
    assert store.get("g-1").unwrap().status.value == "finished"
