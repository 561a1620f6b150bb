"""Runs docs/temporal.md's tracing block as written, in its own process (it sets the global tracer provider).

    python -m tests.temporal.traced_docs TARGET DIR

The ``shop`` module the block imports is the test suite's orders machine; the worker runs one
checkout through itself, then stops. Every span is written to ``DIR/spans-<pid>.jsonl``.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import types
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import cast

from tests.temporal.machines import ORDERS, Charge, Order, Ship, order_performers
from tests.temporal.traced_worker import JsonLines

ROOT = Path(__file__).resolve().parents[2]


def main(target: str, directory: Path) -> None:
    shop = types.ModuleType("shop")
    shop.__dict__.update(
        ORDERS=ORDERS, Order=Order, Charge=Charge, Ship=Ship, performers=lambda: order_performers(directory)
    )
    sys.modules["shop"] = shop
    path = ROOT / "docs" / "temporal.md"
    (block,) = [
        b
        for b in re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
        if "tracing_on" in b
    ]
    namespace: dict[str, object] = {"__name__": "docs_tracing"}

    async def stop_requested() -> None:  # the worker is up: one checkout through it, then stop
        await cast(Callable[[str], Awaitable[None]], namespace["checkout"])(target)

    namespace["stop_requested"] = stop_requested
    exec(compile(block, str(path), "exec"), namespace)
    cast(Callable[[object], None], namespace["tracing_on"])(
        JsonLines(directory / f"spans-{os.getpid()}.jsonl")
    )
    asyncio.run(cast(Callable[[str], Coroutine[object, object, None]], namespace["traced_worker"])(target))


if __name__ == "__main__":  # the sandbox may import this module: only a script run serves
    main(sys.argv[1], Path(sys.argv[2]))
    # Every span is written by now (SimpleSpanProcessor). Leave without interpreter finalization:
    # temporalio's core threads can still call into Python while it finalizes, which once aborted
    # this process with "Fatal Python error: PyGILState_Release" (rc -6) after the work was done.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
