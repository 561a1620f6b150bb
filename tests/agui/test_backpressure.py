"""A slow AG-UI client slows its run down (a bounded feed, as a run stream has); one that leaves does not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import agentsm_fn.server.agui.stream as agui_stream
from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.server.agui.feed import Feed, Happening
from agentsm_fn.server.agui.request import AguiRequest
from agentsm_fn.server.agui.state import public_state
from agentsm_fn.server.agui.stream import StartingPoint, run_events
from tests.agui.agents import ORDERS_AGUI
from tests.durable.machines import Order

ITEMS = 12
STRETCH = 5
"""What a run puts between two waits for room: an effect's start and end, the one transition of a
stretch of pure steps in the orders machine and its memory, and (at the end) the run's stop."""


class _Measured(Feed):
    """A feed that keeps, after each put, how far behind its client is."""

    made: list[_Measured] = []  # noqa: RUF012  # the feeds the endpoint made, for the test to read

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self.depths: list[int] = []
        _Measured.made.append(self)

    def put(self, happening: Happening) -> None:
        super().put(happening)
        self.depths.append(self.buffer.behind())


def _events(store: SqliteStore, run_id: str, capacity: int) -> AsyncIterator[str]:
    order = Order(items=ITEMS)
    request = AguiRequest(thread_id="t", run_id=run_id)
    opening = StartingPoint(stored=run_id, state="START", shown=public_state(order), memory=order)
    return run_events(ORDERS_AGUI, store, request, opening, capacity)


async def _slowly(events: AsyncIterator[str]) -> list[str]:
    """Every event, with many loop turns between two (the run gets the loop meanwhile)."""
    got = []
    async for event in events:
        got.append(event)
        for _ in range(20):
            await asyncio.sleep(0)
    return got


@pytest.mark.parametrize("capacity", [1, 3, 8])
def test_a_slow_client_keeps_the_feed_within_its_bound_and_gets_every_event_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capacity: int
) -> None:
    monkeypatch.setattr(agui_stream, "Feed", _Measured)
    _Measured.made.clear()
    slow_store = SqliteStore.open(tmp_path / "slow.db").unwrap()
    fast_store = SqliteStore.open(tmp_path / "fast.db").unwrap()
    slow = asyncio.run(_slowly(_events(slow_store, "o-1", capacity)))
    fast = asyncio.run(_slowly(_events(fast_store, "o-1", 100_000)))
    (bounded, unbounded) = _Measured.made
    assert max(bounded.depths) <= capacity + STRETCH, bounded.depths
    assert max(bounded.depths) >= capacity  # the client was behind: the run waited for it
    assert max(unbounded.depths) > 4 * ITEMS  # unbounded, the run would have run ahead (sync performers)
    assert slow == fast  # every event, in order
    assert '"RUN_FINISHED"' in slow[-1]
    assert sum('"STATE_DELTA"' in event for event in slow) >= 2 * ITEMS
    for store in (slow_store, fast_store):
        assert store.get("o-1").unwrap().status is RunStatus.FINISHED
        store.close()


def test_a_client_that_leaves_lets_the_run_go_on_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agui_stream, "Feed", _Measured)
    _Measured.made.clear()
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()

    async def leave_early() -> str:
        events = _events(store, "o-2", 1)
        first = await anext(events)
        for _ in range(5):  # the run has started, and waits for the client (capacity 1)
            await anext(events)
        assert _Measured.made[0].buffer.full()
        await events.aclose()  # type: ignore[attr-defined]  # run_events is an async generator
        await asyncio.wait_for(asyncio.gather(*agui_stream._RUNNING), 30)  # the run goes on to its end
        return first

    first = asyncio.run(leave_early())
    assert '"RUN_STARTED"' in first
    assert store.get("o-2").unwrap().status is RunStatus.FINISHED
    (feed,) = _Measured.made
    assert feed.buffer.behind() == 0 and feed.depths[-1] == 0  # nothing kept once the client left
    store.close()
