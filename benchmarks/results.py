"""Typed results: what a validated result costs over text, end to end and per result.

1. With a streaming provider (OpenAI-compatible, ``stream=True``, against aimock on loopback):
   the same ReAct run (one tool call, then the answer) returning a validated ``Invoice`` (the
   schema sent as ``response_format``, the streamed reply checked: parsed, schema, converted,
   an output validator) vs returning the same reply as text. Both sides get the same reply
   bytes; they are timed in rounds, each in a rotated order, and the ratio of the best wall times
   is the verdict (target: <= 1.05), the median of the per-round ratios printed beside it, and
   the ratio of this process's CPU time (what other processes on a shared machine disturb least).
2. With a scripted LLM (no IO): the cost of validation per result in µs, for a flat class
   (``Verdict``: three scalars) and one nested three levels deep (``Invoice`` of ``Line`` of
   ``Money``): ``ResultType.check`` alone, and a whole typed run minus the same text run.

    bash scripts/aimock.sh && python benchmarks/results.py [--runs 100] [--repeat 11] [--concurrency 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

import attrs
import httpx
from returns.result import Failure, Result, Success

from agentsm_fn.agents.output import ResultType, result_type
from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.providers import HttpProvider, openai_provider
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm

sys.path.append(str(Path(__file__).resolve().parent))
from providers import start_aimock  # the sibling benchmark's aimock launcher

T = TypeVar("T")

TASK = "Extract the invoice behind bench order 7"
SCHEMA = {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]}


@attrs.frozen(kw_only=True)
class Verdict:
    """A flat result: three scalars."""

    holds: bool
    reason: str
    confidence: float = 1.0


@attrs.frozen(kw_only=True)
class Money:
    """An amount in a currency (level 3)."""

    amount: float
    currency: str


@attrs.frozen(kw_only=True)
class Line:
    """One invoice line (level 2)."""

    sku: str
    quantity: int
    price: Money


@attrs.frozen(kw_only=True)
class Invoice:
    """An invoice (level 1): three levels deep."""

    number: str
    lines: tuple[Line, ...]
    total: Money


def _invoice(lines: int) -> dict[str, object]:
    items = [
        {"sku": f"sku-{i}", "quantity": 2, "price": {"amount": 1.5, "currency": "EUR"}} for i in range(lines)
    ]
    return {"number": "INV-7", "lines": items, "total": {"amount": 3.0 * lines, "currency": "EUR"}}


INVOICE_JSON = json.dumps(_invoice(5))
VERDICT_JSON = json.dumps({"holds": True, "reason": "water is wet", "confidence": 0.9})


def totals_match(invoice: Invoice) -> Result[Invoice, str]:
    """The output validator the typed runs use: the total is the sum of the lines."""
    lines = sum(line.quantity * line.price.amount for line in invoice.lines)
    return Success(invoice) if abs(lines - invoice.total.amount) < 0.005 else Failure("totals differ")


def lookup(order: str) -> str:
    return f"order {order}: 5 lines of 2 x 1.50 EUR"


async def alookup(order: str) -> str:
    return lookup(order)


def load_fixtures(base: str) -> None:
    """aimock answers this benchmark's task: a tool call, then the invoice (streamed in chunks)."""
    fixtures = [
        {
            "match": {"userMessage": TASK, "turnIndex": 0},
            "response": {"toolCalls": [{"id": "call_1", "name": "lookup", "arguments": {"order": "7"}}]},
        },
        {"match": {"userMessage": TASK, "turnIndex": 1}, "response": {"content": INVOICE_JSON}},
    ]
    with httpx.Client(base_url=base, timeout=10) as control:
        control.post("/__aimock/reset").raise_for_status()
        control.post("/__aimock/fixtures", json={"fixtures": fixtures}).raise_for_status()


def builder(provider: HttpProvider | ScriptedLlm) -> AgentBuilder[str]:
    """The agent both sides run: async runs call the tool as a coroutine, sync runs as a function."""
    fn = lookup if isinstance(provider, ScriptedLlm) else alookup
    return AgentBuilder.new(TASK).llm(provider).tool("lookup", "Look an order up", SCHEMA, fn)


async def typed_run(provider: HttpProvider) -> None:
    agent = builder(provider).result_type(Invoice).validate_result(totals_match).build().unwrap()
    done = (await agent.arun()).unwrap()
    assert isinstance(done, ReactCompleted) and done.result.number == "INV-7", done


async def text_run(provider: HttpProvider) -> None:
    done = (await builder(provider).build().unwrap().arun()).unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == INVOICE_JSON, done


async def timed(runs: int, concurrency: int, one: Callable[[], Awaitable[None]]) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds for ``runs`` runs, ``concurrency`` at a time."""
    queue = iter(range(runs))

    async def worker() -> None:
        for _ in queue:
            await one()

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, time.process_time() - cpu


@attrs.frozen
class Sides:
    """Text and typed runs: best wall and CPU seconds, the median per-round wall ratio, calls per run."""

    wall: tuple[float, float]
    cpu: tuple[float, float]
    median: float
    calls: tuple[float, float]


async def counted(runs: int, one: Callable[[], Awaitable[None]]) -> float:
    """Python function calls per run (``sys.setprofile``): the cost no other process's load disturbs."""
    count = [0]

    def profile(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        for _ in range(runs):
            await one()
    finally:
        sys.setprofile(None)
    return count[0] / runs


async def streaming(base: str, runs: int, repeat: int, concurrency: int) -> Sides:
    """Text runs and typed runs, each side ``repeat`` times in alternating order."""
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    async with httpx.AsyncClient(limits=limits) as client:
        provider = openai_provider(
            "bench", base_url=f"{base}/v1", api_key="sk-bench", stream=True, async_client=client
        )
        sides: list[Callable[[], Awaitable[None]]] = [lambda: text_run(provider), lambda: typed_run(provider)]
        for side in sides:  # warm-up: the pool, the server's JIT, the schema's compiled validator
            await timed(50, concurrency, side)
        rounds: list[list[tuple[float, float]]] = []
        for r in range(repeat):
            times = [(0.0, 0.0), (0.0, 0.0)]
            for i in (r % 2, (r + 1) % 2):
                times[i] = await timed(runs, concurrency, sides[i])
            rounds.append(times)
        calls = (await counted(20, sides[0]), await counted(20, sides[1]))
    wall = (min(t[0][0] for t in rounds), min(t[1][0] for t in rounds))
    cpu = (min(t[0][1] for t in rounds), min(t[1][1] for t in rounds))
    return Sides(wall, cpu, statistics.median(t[1][0] / t[0][0] for t in rounds), calls)


def per_call(fn: Callable[[], object], seconds: float = 0.3) -> float:
    """µs per call of ``fn``: the best of five timings of as many calls as fill ``seconds``."""
    fn()
    n, spent = 1, 0.0
    while spent < seconds / 5:
        n *= 2
        started = time.perf_counter()
        for _ in range(n):
            fn()
        spent = time.perf_counter() - started
    best = spent
    for _ in range(4):
        started = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - started)
    return best / n * 1e6


def scripted_cost(
    reply: str, check: ResultType[T], rounds: int = 7, seconds: float = 0.1
) -> tuple[float, float]:
    """µs per result: ``check`` alone, and a scripted typed run minus the same scripted text run."""
    calls = (ToolCall("call_1", "lookup", {"order": "7"}),)

    def run(typed: bool) -> None:
        llm = ScriptedLlm([LlmReply(tool_calls=calls), LlmReply(content=reply)])
        shaped = builder(llm).result_type(check) if typed else builder(llm)
        done = shaped.build().unwrap().run().unwrap()
        assert isinstance(done, ReactCompleted)

    alone = per_call(lambda: check.check(reply).unwrap(), seconds * 3)
    typed, text = [], []
    for _ in range(rounds):  # interleaved rounds, the best of each: the machine's noise hits both sides alike
        typed.append(per_call(lambda: run(True), seconds))
        text.append(per_call(lambda: run(False), seconds))
    return alone, min(typed) - min(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=11, help="rounds of each side")
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--no-stream", action="store_true", help="the scripted figures only (no aimock)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: one short round of everything")
    args = parser.parse_args(argv)
    rounds, seconds = (1, 0.005) if args.quick else (7, 0.1)
    if args.quick:
        args.runs, args.repeat = 10, 1
    if not args.no_stream:
        process, base = start_aimock()
        try:
            load_fixtures(base)
            sides = asyncio.run(streaming(base, args.runs, args.repeat, args.concurrency))
        finally:
            process.terminate()
            process.wait(timeout=10)
        (text, typed), (text_cpu, typed_cpu) = sides.wall, sides.cpu
        ratio = typed / text
        verdict = "meets" if ratio <= 1.05 else "misses"
        print(f"streaming (OpenAI-compatible, aimock), {args.runs} runs x 2 LLM calls, ", end="")
        print(f"{args.concurrency} concurrent, {args.repeat} rounds:")
        print(f"  text {args.runs / text:.1f} runs/s, validated Invoice {args.runs / typed:.1f} runs/s")
        print(
            f"  validated result / text: {ratio:.3f} of best wall times ({verdict} the <= 1.05 target;",
            end=" ",
        )
        print(
            f"median per round {sides.median:.3f}); this process's CPU: {typed_cpu / text_cpu:.3f}", end=" "
        )
        print(f"({text_cpu / args.runs * 1e6:.0f} vs {typed_cpu / args.runs * 1e6:.0f} µs per run)")
        (text_calls, typed_calls) = sides.calls
        print(f"  Python calls per run: text {text_calls:.0f}, validated {typed_calls:.0f}", end=" ")
        print(f"({typed_calls / text_calls:.3f}; counted, so no other process's load moves it)")
    flat = result_type(Verdict)
    nested = result_type(Invoice).validated_by(totals_match)
    print("scripted LLM (no IO), validation per result in µs: check alone; typed run - text run")
    for label, (alone, run) in (
        ("flat (Verdict, 3 fields)", scripted_cost(VERDICT_JSON, flat, rounds, seconds)),
        ("nested 3 levels (Invoice, 5 lines)", scripted_cost(INVOICE_JSON, nested, rounds, seconds)),
    ):
        print(f"  {label:<36} {alone:7.1f} µs   {run:7.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
