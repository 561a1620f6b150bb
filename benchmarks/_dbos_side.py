"""DBOS against our PostgreSQL store: the cost per effect of the same workload on the same server.

DBOS (``dbos`` on PyPI, the bench extra) checkpoints each ``@DBOS.step`` of a ``@DBOS.workflow``
in its system database. The workflow here calls the engine benchmark's scripted LLM and tool as
steps, exactly the calls the durable run performs as effects (2K + 1 of them at K tool calls).
"""

from __future__ import annotations

import importlib
import time
from types import ModuleType
from typing import Any

from _langgraph_side import has

from agentsm_fn.durable import Durable
from agentsm_fn.durable.stores.postgres import PostgresStore


def per_effect(
    server: Any, engine: ModuleType, durable: Durable[Any, Any, Any], k: int, rounds: int
) -> list[str]:
    """Microseconds per effect: a durable run on PostgresStore against a DBOS workflow; one verdict."""
    if not has("dbos"):
        print("DBOS is not installed (the bench extra): its side is skipped")
        return []
    dbos: Any = importlib.import_module("dbos")
    DBOS = dbos.DBOS  # DBOS's own name for its class

    def consult_llm() -> str:
        return str(engine.LLM())

    def use_tool(call: str) -> str:
        return str(engine.tool(call))

    consult: Any = DBOS.step()(consult_llm)  # DBOS's decorators, applied by hand: they are untyped
    use: Any = DBOS.step()(use_tool)

    def run_workload(k: int) -> int:
        engine.LLM.reset(k)
        done = 0
        while reply := consult():
            use(reply)
            done += 1
        return done

    workload: Any = DBOS.workflow()(run_workload)

    DBOS(
        config={
            "name": "agentsm-bench",
            "system_database_url": server.create_database(),
            "log_level": "ERROR",
        }
    )
    DBOS.launch()
    store = PostgresStore.open(server.create_database()).unwrap()
    try:
        theirs = ours = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            assert workload(k) == k
            theirs = min(theirs, time.perf_counter() - started)
            engine.LLM.reset(k)
            started = time.perf_counter()
            assert durable.start(store, engine.Mem()).unwrap().finished
            ours = min(ours, time.perf_counter() - started)
    finally:
        store.close()
        DBOS.destroy(destroy_registry=True)
    effects = 2 * k + 1
    durable_us, dbos_us = ours / effects * 1e6, theirs / effects * 1e6
    print(f"per effect at K={k} on PostgreSQL: durable {durable_us:.0f} µs, DBOS {dbos_us:.0f} µs")
    return [f"per effect on PostgreSQL: durable / DBOS = {ours / theirs:.2f}x"]
