"""The durable codec against the ReAct agent's hand-written JSON codec (and cattrs, if installed).

    .venv/bin/python benchmarks/codec.py [--entries N] [--rounds R]

Encodes and decodes one ReAct ``AgentMemory`` holding N history entries (tool calls with
JSON arguments, observations, usage, tools with schemas) and prints µs per round trip and
bytes, with ratios against the hand-written codec measured in the same run. The cattrs
side (``bench`` extra) is the library's best case: structure by the declared type, with
hooks only for what cattrs cannot do alone (persistent vectors, frozen JSON maps); it is
not exact for fields typed ``object`` (effects, outcomes), which the durable codec must be.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from collections.abc import Callable
from typing import Any

from pyrsistent import PMap, PVector, pmap, pvector

from agentsm_fn.agents.react import AgentMemory, HistoryEntry
from agentsm_fn.agents.react import codec as react_codec
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.llm import ToolCall
from agentsm_fn.tools import ToolDef

SEARCH = ToolDef(
    name="search",
    description="Search the web",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)


def memory(entries: int) -> AgentMemory:
    history = [
        HistoryEntry(
            step=i,
            tool=ToolCall(f"call_{i}", "search", {"query": f"question {i}", "limit": i % 7, "deep": True}),
            observation=f"SUCCESS: result number {i} " * 4,
            success=True,
        )
        for i in range(entries)
    ]
    return (
        AgentMemory.new("What is the population of Paris?")
        .with_tools([SEARCH])
        .evolve(history=pvector(history))
    )


def timed(label: str, rounds: int, work: Callable[[], object]) -> float:
    work()
    start = time.perf_counter()
    for _ in range(rounds):
        work()
    return (time.perf_counter() - start) / rounds * 1e6


def cattrs_round_trip() -> Callable[[AgentMemory], object] | None:
    if importlib.util.find_spec("cattrs") is None:
        return None
    # The bench extra is not installed in CI (nor its types seen by mypy there): import it by name.
    converter: Any = importlib.import_module("cattrs.preconf.json").make_converter()
    converter.register_unstructure_hook(PVector, lambda v: [converter.unstructure(x) for x in v])
    converter.register_unstructure_hook(PMap, lambda m: {k: converter.unstructure(x) for k, x in m.items()})
    converter.register_structure_hook(
        PVector, lambda v, _: pvector(converter.structure(x, HistoryEntry) for x in v)
    )
    converter.register_structure_hook(PMap, lambda m, _: pmap(m))

    def round_trip(value: AgentMemory) -> object:
        text = json.dumps(converter.unstructure(value))
        return converter.structure(json.loads(text), AgentMemory)

    return round_trip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    value = memory(args.entries)
    assert from_bytes(to_bytes(value).unwrap(), AgentMemory).unwrap() == value
    assert react_codec.loads_snapshot(react_codec.dumps_snapshot(value)).unwrap() == value
    sides: list[tuple[str, float, int]] = [
        (
            "hand-written JSON codec (agents/react/codec.py)",
            timed(
                "react", args.rounds, lambda: react_codec.loads_snapshot(react_codec.dumps_snapshot(value))
            ),
            len(react_codec.dumps_snapshot(value).encode()),
        ),
        (
            "durable codec (tagged tree, msgpack via msgspec)",
            timed("durable", args.rounds, lambda: from_bytes(to_bytes(value).unwrap(), AgentMemory)),
            len(to_bytes(value).unwrap()),
        ),
        (
            "durable codec, encode only",
            timed("encode", args.rounds, lambda: to_bytes(value)),
            len(to_bytes(value).unwrap()),
        ),
    ]
    cattrs_side = cattrs_round_trip()
    if cattrs_side is not None:
        try:
            exact = cattrs_side(value) == value
        except Exception as exc:  # report why the library cannot do it
            print(f"cattrs cannot round-trip an AgentMemory: {type(exc).__name__}: {exc}")
        else:
            micros = timed("cattrs", args.rounds, lambda: cattrs_side(value))
            sides.append((f"cattrs, typed (bench extra; exact: {exact})", micros, 0))
    base = sides[0][1]
    print(f"AgentMemory with {args.entries} history entries, {args.rounds} rounds")
    for label, micros, size in sides:
        shown = f"{size:>8} B" if size else "       -  "
        print(f"  {label:<52} {micros:>9.1f} µs  {shown}  {micros / base:5.2f}x")


if __name__ == "__main__":
    main()
