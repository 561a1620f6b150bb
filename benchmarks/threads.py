"""Benchmark of threads: starting turn 500 costs what starting turn 1 does; its request stays in budget.

Run: .venv/bin/python benchmarks/threads.py [--turns 500] [--samples 30] [--context 16000]

Targets (issue 27, item 7), ratios against a baseline measured in the same run:

* Starting turn 500 of a thread costs at most 1.5x starting turn 1: a turn's start reads one
  stored value (the thread so far after the turn before), never the journals of the turns
  before it. "Starting" is ``Durable.chat`` from its call to the turn's first LLM request: the
  thread read, the conditional write that takes the turn with its run, the run's load, and the
  agent's steps up to its request. Turn 1 is the median over ``--samples`` new threads; turn 500
  the median over turns 500 to 500 + samples - 1 of one thread. The journals read while a turn
  starts are counted (its own run's only), and, for scale, what replaying the earlier turns'
  journals would cost is printed too (what a thread rebuilt from its runs would pay).
* The conversation a ReAct agent sends the LLM at turn 500 stays within the thread's context
  budget (``AgentConfig.thread.context``, ``--context`` estimated tokens; the library's default,
  16,000, unless given): the earlier turns in every planning request, the largest over the whole
  thread and turn 500's, against the budget (older turns are compressed by the agent's own LLM
  call when a turn starts over it).

The LLM answers at once (in process), so the figures are the library's own cost. The store is a
SQLite file. :func:`build_thread` makes a thread of any length; the inspector's thread-page
figures (1,000 turns in headless Chromium) can build theirs with it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from returns.result import Result  # noqa: E402

from agentsm_fn.agents.react import REACT_MACHINE, AgentConfig, AgentMemory, Event, State  # noqa: E402
from agentsm_fn.durable import Durable, JournalRow, SqliteStore, StoreFailure  # noqa: E402
from agentsm_fn.durable.running import _so_far  # noqa: E402
from agentsm_fn.durable.running.replay import replay_stored  # noqa: E402
from agentsm_fn.durable.stores.codec import from_bytes  # noqa: E402
from agentsm_fn.llm import (  # noqa: E402
    Conversation,
    LlmReply,
    LlmRequest,
    SystemMessage,
    ThreadBudget,
    UserMessage,
    estimate_tokens,
)
from agentsm_fn.shell.react_performers import react_shell  # noqa: E402
from agentsm_fn.tools import ToolRegistry  # noqa: E402

START_TARGET = 1.5
"""Starting turn 500 may cost at most this many times starting turn 1."""


class InstantLlm:
    """Answers every request at once; notes when each request came and what it held."""

    name = "instant"

    def __init__(self) -> None:
        self.calls: list[tuple[float, LlmRequest]] = []

    def complete(self, request: LlmRequest) -> LlmReply:
        self.calls.append((time.perf_counter(), request))
        asked = request.messages[-1].content[:40] if request.messages else ""
        return LlmReply(content=f"Here is a careful answer to: {asked}")


READ: list[str] = []
"""The runs whose journals the store read (the start of a turn reads its own only, if any)."""


class CountingStore(SqliteStore):
    """A SQLite store that notes in :data:`READ` which runs' journals it read."""

    def journal(self, run_id: str, start: int = 0) -> Result[tuple[JournalRow, ...], StoreFailure]:
        """The run's journal, noted."""
        READ.append(run_id)
        return super().journal(run_id, start)


def agent(llm: InstantLlm, context: int) -> Durable[State, Event, AgentMemory]:
    """A ReAct agent whose thread keeps at most ``context`` estimated tokens of earlier turns."""
    memory = AgentMemory.new("").with_config(AgentConfig(thread=ThreadBudget(context=context)))
    return Durable(
        name="benchmarks.threads:AGENT",
        machine=REACT_MACHINE,
        template=memory,
        shell=lambda: react_shell(llm, ToolRegistry()),
    )


def message(number: int) -> str:
    """The user's message of turn ``number`` (1-based), unique so a request tells its turn."""
    return f"Message {number}: what should I pack for a week of hiking in the Alps in June?"


def build_thread(
    store: SqliteStore, durable: Durable[State, Event, AgentMemory], thread_id: str, turns: int
) -> None:
    """A thread of ``turns`` finished turns (each one chat call)."""
    for number in range(1, turns + 1):
        durable.chat(store, thread_id, message(number)).unwrap()


def start_cost(
    store: SqliteStore,
    durable: Durable[State, Event, AgentMemory],
    llm: InstantLlm,
    thread_id: str,
    number: int,
) -> float:
    """Seconds from ``chat`` to the turn's first LLM request, for turn ``number`` of ``thread_id``."""
    before = len(llm.calls)
    t0 = time.perf_counter()
    durable.chat(store, thread_id, message(number)).unwrap()
    return llm.calls[before][0] - t0


def earlier_tokens(request: LlmRequest) -> int:
    """The estimated tokens of the earlier turns a planning request carries (not its system prompt, task)."""
    carried = [m for m in request.messages[:-1] if not isinstance(m, SystemMessage)]
    return sum(map(estimate_tokens, carried))


def is_planning(request: LlmRequest) -> bool:
    """A planning request ends with its turn's message (a compression request does not)."""
    last = request.messages[-1] if request.messages else None
    return isinstance(last, UserMessage) and last.content.startswith("Message ")


def timed(work: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    work()
    return time.perf_counter() - t0


@attrs.frozen(kw_only=True)
class Starts:
    """Start costs measured in turn (seconds): turn 1 of new threads, turn N warm, turn N cold."""

    first: list[float]
    warm: list[float]
    cold: list[float]
    journals: list[str]
    """Runs whose journals were read while they started, other than the turns' own."""


def measure_starts(
    store: SqliteStore, durable: Durable[State, Event, AgentMemory], llm: InstantLlm, turns: int, samples: int
) -> Starts:
    """Start ``samples`` first turns and turns ``turns``... of thread ``long`` (built), interleaved.

    A warm turn follows a turn this process ran (the thread so far in hand); a cold one follows a
    turn another process ran (this process forgets what it knew: one read and one decode).
    """
    READ.clear()
    first: list[float] = []
    warm: list[float] = []
    cold: list[float] = []
    number = turns
    for k in range(samples):  # interleaved, so all see the same load of the machine
        first.append(start_cost(store, durable, llm, f"new-{k}", 1))
        warm.append(start_cost(store, durable, llm, "long", number))
        _so_far.forget_known()
        cold.append(start_cost(store, durable, llm, "long", number + 1))
        number += 2
    own = {turn.run_id for turn in store.turns("long", turns - 1).unwrap()}
    return Starts(first=first, warm=warm, cold=cold, journals=sorted(set(READ) - own))


@attrs.frozen(kw_only=True)
class Decoding:
    """What a cold start cannot avoid: the thread so far read back and decoded (medians, seconds)."""

    messages: int
    size: int
    read: float
    decode: float


def decoding(store: SqliteStore, thread_id: str, samples: int) -> Decoding:
    """Read and decode the thread so far after the last ended turn of ``thread_id``, ``samples`` times."""
    last = store.thread(thread_id).unwrap().last
    assert last is not None
    kept = store.so_far(thread_id, last.turn).unwrap()
    assert kept is not None  # the turn ended in this process, which kept it
    reads: list[float] = []
    decodes: list[float] = []
    for _ in range(samples):
        t0 = time.perf_counter()
        data = store.so_far(thread_id, last.turn).unwrap() or b""
        t1 = time.perf_counter()
        from_bytes(data, Conversation).unwrap()
        reads.append(t1 - t0)
        decodes.append(time.perf_counter() - t1)
    read, decode = statistics.median(reads), statistics.median(decodes)
    messages = len(from_bytes(kept, Conversation).unwrap().messages)
    return Decoding(messages=messages, size=len(kept), read=read, decode=decode)


def main(argv: list[str] | None = None) -> int:
    """Print the figures; exit 1 if a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--context", type=int, default=ThreadBudget().context)
    args = parser.parse_args(argv)
    llm = InstantLlm()
    durable = agent(llm, args.context)
    n = args.turns
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(CountingStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        built = timed(lambda: build_thread(store, durable, "long", n - 1))
        starts = measure_starts(store, durable, llm, n, args.samples)
        earlier = [turn.run_id for turn in store.turns("long", 0, n - 1).unwrap()]
        replay = timed(lambda: [replay_stored(store, durable.machine, run_id).unwrap() for run_id in earlier])
        floor = decoding(store, "long", args.samples)
    first, warm, cold = map(statistics.median, (starts.first, starts.warm, starts.cold))
    planning = [request for _, request in llm.calls if is_planning(request)]
    at_turn = next(r for r in planning if r.messages[-1].content == message(n))
    largest = max(map(earlier_tokens, planning))
    print(f"a thread of {n - 1} turns built in {built:.1f} s ({built / (n - 1) * 1000:.1f} ms a turn)")
    print(f"start of turn 1 (median of {args.samples} new threads): {first * 1000:.2f} ms")
    print(f"start of turn {n}+ after a turn run here (median of {args.samples}): {warm * 1000:.2f} ms")
    print(f"  ratio {warm / first:.2f}x (target <= {START_TARGET}x)")
    print(f"start of turn {n}+ after a turn run elsewhere (median of {args.samples}): {cold * 1000:.2f} ms")
    print(f"  ratio {cold / first:.2f}x (one read and one decode of the thread so far)")
    kept = f"{floor.messages} messages, {floor.size / 1000:.0f} kB"
    read, decode = floor.read * 1000, floor.decode * 1000
    print(f"  of which reading the thread so far ({kept}) takes {read:.2f} ms, decoding it {decode:.2f} ms:")
    unavoidable = (floor.read + floor.decode) / first
    print(f"  {unavoidable:.2f}x turn 1, which no cold start avoids (bound by the context budget)")
    print(f"journals of earlier turns read to start them: {len(starts.journals)}")
    print(f"  replaying the {len(earlier)} earlier turns' journals instead: {replay * 1000:.0f} ms")
    print(f"earlier turns in the LLM request at turn {n}: {earlier_tokens(at_turn)} estimated tokens")
    print(f"  largest over every planning request: {largest}; the thread's context budget: {args.context}")
    ok = warm / first <= START_TARGET and not starts.journals and largest <= args.context
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
