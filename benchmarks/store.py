"""Durable runs on SQLite against in-memory runs, and against LangGraph with its SqliteSaver.

Every side runs in the same process, in alternation, best of several rounds:

1. The engine benchmark's reference workload (``Idle -> Planning -> (Acting -> Observing ->
   Planning) x K -> Done``, the LLM and tool calls performed as effects: the ``effects``
   variant of ``benchmarks/engine.py``) at K = 3, 100 and 1,000: in memory (``run``), durable
   (``Durable.start`` on a SQLite store: every effect committed before the machine sees it,
   ``synchronous=NORMAL``), and LangGraph (the same graph as a ``StateGraph`` whose nodes call
   the same scripted LLM and tool, checkpointed by ``SqliteSaver`` after every step). Target:
   durable <= 0.1x LangGraph's time.
2. 100 concurrent async ReAct runs (3 tool calls, 4 LLM calls each) against aimock on loopback:
   in memory (``agent.arun()``) and durable (``Durable.astart``, one store for all runs).
   Target: durable throughput >= 0.8x in memory.

    python benchmarks/store.py [--quick] [--no-aimock]

LangGraph is optional (the ``bench`` extra): without it that side is skipped and said so.
Part 2 needs aimock (``bash scripts/aimock.sh``); ``--no-aimock`` skips it.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import operator
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, TypedDict

from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.shell import run

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, file: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # attrs (and the durable codec) find the module's classes through sys.modules
    spec.loader.exec_module(module)
    return module


ENGINE = _load("engine_benchmark", "engine.py")


def best(rounds: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


# --- part 1: the reference workload --------------------------------------------------------------


def in_memory(k: int) -> None:
    ENGINE.LLM.reset(k)
    done = run(ENGINE.MACHINE, ENGINE.Mem(), ENGINE.SHELL).unwrap()
    assert len(done.memory.history) == k


def durable_side(folder: Path) -> Callable[[int], None]:
    store = SqliteStore.open(folder / "durable.db").unwrap()
    durable = Durable(name="engine_benchmark:MACHINE", machine=ENGINE.MACHINE, shell=lambda: ENGINE.SHELL)

    def one(k: int) -> None:
        ENGINE.LLM.reset(k)
        done = durable.start(store, ENGINE.Mem()).unwrap()
        assert done.finished and len(done.snapshot.memory.history) == k

    return one


class GraphState(TypedDict):
    step: int
    pending: str
    observation: str
    answer: str
    history: Annotated[list[str], operator.add]


def has_sqlite_saver() -> bool:
    """Whether LangGraph and its SqliteSaver are installed (the dev extra has LangGraph alone)."""
    return (
        importlib.util.find_spec("langgraph") is not None
        and importlib.util.find_spec("langgraph.checkpoint.sqlite") is not None
    )


def langgraph_side(folder: Path) -> Callable[[int], None] | None:
    if not has_sqlite_saver():
        return None
    # Imported by name: the bench extra is not installed in CI, where mypy checks this file.
    saver: Any = importlib.import_module("langgraph.checkpoint.sqlite").SqliteSaver
    graphs: Any = importlib.import_module("langgraph.graph")

    def planning(state: GraphState) -> dict[str, Any]:
        reply = ENGINE.LLM()
        if reply:
            return {"step": state["step"] + 1, "pending": reply}
        return {"step": state["step"] + 1, "pending": "", "answer": "done"}

    def acting(state: GraphState) -> dict[str, Any]:
        return {"observation": ENGINE.tool(state["pending"])}

    def observing(state: GraphState) -> dict[str, Any]:
        return {"history": [f"{state['pending']}: {state['observation']}"], "pending": ""}

    graph = graphs.StateGraph(GraphState)
    graph.add_node("planning", planning)
    graph.add_node("acting", acting)
    graph.add_node("observing", observing)
    graph.add_edge(graphs.START, "planning")
    graph.add_conditional_edges("planning", lambda s: "acting" if s["pending"] else graphs.END)
    graph.add_edge("acting", "observing")
    graph.add_edge("observing", "planning")
    connection = sqlite3.connect(folder / "langgraph.db", check_same_thread=False)
    app = graph.compile(checkpointer=saver(connection))
    counter = iter(range(10**9))

    def one(k: int) -> None:
        ENGINE.LLM.reset(k)
        config = {"configurable": {"thread_id": f"t{next(counter)}"}, "recursion_limit": 4 * k + 10}
        state = app.invoke({"step": 0, "pending": "", "observation": "", "answer": "", "history": []}, config)
        assert len(state["history"]) == k

    return one


def part_one(ks: list[int], rounds: int) -> list[str]:
    verdicts = []
    with tempfile.TemporaryDirectory() as folder:
        durable = durable_side(Path(folder))
        graph = langgraph_side(Path(folder))
        if graph is None:
            print(
                "LangGraph's SqliteSaver is not installed (pip install 'agentsm-fn[bench]'): "
                "its side is skipped"
            )
        print(
            f"{'K':>6} {'transitions':>11} {'in memory':>11} {'durable':>11} {'LangGraph':>11} "
            f"{'durable/mem':>12} {'durable/LG':>11}"
        )
        for k in ks:
            n = rounds if k < 1_000 else max(1, rounds // 3)
            mem = best(n, functools.partial(in_memory, k))
            dur = best(n, functools.partial(durable, k))
            lg = best(max(1, n // 2), functools.partial(graph, k)) if graph is not None else float("nan")
            ratio = dur / lg if graph is not None else float("nan")
            print(
                f"{k:>6} {3 * k + 2:>11} {mem * 1e3:>9.2f}ms {dur * 1e3:>9.2f}ms {lg * 1e3:>9.2f}ms "
                f"{dur / mem:>11.1f}x {ratio:>10.3f}x"
            )
            if graph is not None:
                verdicts.append(f"K={k}: durable / LangGraph+SqliteSaver = {ratio:.3f}x (target <= 0.1)")
    return verdicts


# --- part 2: concurrent ReAct runs against aimock -----------------------------------------------


async def part_two_async(runs: int, concurrency: int, rounds: int) -> str:
    import httpx  # noqa: PLC0415 - only this part needs a client

    from agentsm_fn.shell.react_agent import AgentBuilder  # noqa: PLC0415

    providers = _load("providers_benchmark", "providers.py")
    process, base = providers.start_aimock()
    try:
        async with httpx.AsyncClient(
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=100)
        ) as client:
            provider = providers.make_provider("openai", base, client)

            def agent() -> Any:
                return (
                    AgentBuilder.new(providers.TASK)
                    .llm(provider)
                    .tool("lookup", "Look a key up", providers.SCHEMA, providers.alookup)
                    .build()
                    .unwrap()
                )

            async def memory_run() -> None:
                assert (await agent().arun()).unwrap().answer == providers.ANSWER

            with tempfile.TemporaryDirectory() as folder:
                store = SqliteStore.open(Path(folder) / "react.db").unwrap()

                async def durable_run() -> None:
                    built = agent()
                    durable = Durable(name="bench:REACT", machine=built.machine, shell=built.shell)
                    done = (await durable.astart(store, built.memory)).unwrap()
                    assert done.finished and done.snapshot.memory.final_answer == providers.ANSWER

                mem, dur = 0.0, 0.0
                for _ in range(rounds):
                    mem = max(mem, runs / await providers.timed(runs, concurrency, memory_run))
                    dur = max(dur, runs / await providers.timed(runs, concurrency, durable_run))
        print(
            f"{runs} ReAct runs, {concurrency} concurrent, aimock: in memory {mem:.0f} runs/s, "
            f"durable {dur:.0f} runs/s"
        )
        ratio = dur / mem
        return (
            f"durable / in-memory throughput at {concurrency} concurrent runs = {ratio:.2f}x (target >= 0.8)"
        )
    finally:
        process.kill()
        process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round, small K and few runs (a smoke test)")
    parser.add_argument(
        "--no-aimock", action="store_true", help="skip the concurrent ReAct runs against aimock"
    )
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    ks = [3, 100] if args.quick else [3, 100, 1_000]
    verdicts = part_one(ks, rounds)
    if not args.no_aimock:
        runs = 20 if args.quick else 200
        verdicts.append(asyncio.run(part_two_async(runs, 100 if not args.quick else 10, rounds)))
    for verdict in verdicts:
        print(verdict)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
