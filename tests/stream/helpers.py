"""Helpers for the run stream tests: collect a stream, compare events without their durations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable

import attrs

from agentsm_fn.stream import EffectCompleted, RunEvent, history_position

WAIT = 10.0
"""Seconds a test waits for something that should happen at once (a bound, never a sleep)."""


async def collect(events: AsyncIterator[RunEvent]) -> list[RunEvent]:
    return [event async for event in events]


def timeless(event: RunEvent) -> RunEvent:
    """The event without its measured duration (live and replayed durations differ)."""
    return attrs.evolve(event, seconds=0.0) if isinstance(event, EffectCompleted) else event


def history(events: list[RunEvent]) -> list[RunEvent]:
    """The history events of ``events``, durations left out."""
    return [timeless(event) for event in events if history_position(event) is not None]


def positions(events: list[RunEvent]) -> list[int]:
    return [position for event in events if (position := history_position(event)) is not None]


async def within(awaitable: Awaitable[object], what: str) -> None:
    """Await ``awaitable`` for at most :data:`WAIT` seconds; fail saying ``what`` did not happen."""
    try:
        await asyncio.wait_for(awaitable, WAIT)
    except TimeoutError:
        raise AssertionError(f"{what} did not happen within {WAIT} s") from None
