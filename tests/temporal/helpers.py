"""Shared by the Temporal tests: unique task queues, a bounded poll for an awaited effect."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from agentsm_fn.temporal import PendingEffect, TemporalRun


def queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


async def wait_for_pending(run: TemporalRun[Any, Any]) -> PendingEffect:
    for _ in range(500):  # a bounded poll: the run reaches its approval within a few workflow tasks
        found = await run.pending()
        if found is not None and found.awaited:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError("the run never waited for an answer")
