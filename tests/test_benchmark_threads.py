"""The threads benchmark measures what it says: a quick run prints every figure, and its thread is real.

No timing here (speed is measured by running ``benchmarks/threads.py``): a small run goes through
every figure, and the thread :func:`build_thread` makes has every turn, each turn's request holding
the turns before it within the budget.
"""

from __future__ import annotations

import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from tests.test_benchmarks import load_benchmark


def test_a_quick_run_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("threads")
    bench.main(["--turns", "12", "--samples", "2", "--context", "200"])
    out = capsys.readouterr().out
    for figure in (
        "start of turn 1",
        "start of turn 12+ after a turn run here",
        "start of turn 12+ after a turn run elsewhere",
        "decoding it",
        "which no cold start avoids",
        "journals of earlier turns read to start them: 0",
        "earlier turns in the LLM request at turn 12",
        "the thread's context budget: 200",
    ):
        assert figure in out, out


def test_the_built_thread_has_every_turn_and_each_request_carries_the_ones_before() -> None:
    bench = load_benchmark("threads")
    llm = bench.InstantLlm()
    durable = bench.agent(llm, 10_000)
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(bench.CountingStore.open(Path(folder) / "r.db").unwrap()) as store,
    ):
        bench.build_thread(store, durable, "t", 4)
        assert [t.message for t in store.turns("t").unwrap()] == [bench.message(n) for n in range(1, 5)]
    planning = [request for _, request in llm.calls if bench.is_planning(request)]
    assert [len(request.messages) for request in planning] == [1, 3, 5, 7]  # user, then 2 more a turn
