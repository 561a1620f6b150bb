"""Benchmark of the run inspector in headless Chromium: opening a long run, and moving its step control.

Run: .venv/bin/python benchmarks/inspector.py [--steps 400 1000] [--changes 200] [--turns 1000]

Targets (issues 22 and 27): a run with 1,000 steps opens in under a second, whether its memory
stays the same size (``COUNTER``) or grows as it goes (``TRANSFERS``: a receipt in a persistent
vector and a note in a tuple every other step, as every agent's history grows), and its step
control stays responsive. Each shape is measured at every ``--steps`` length: the server's
``GET /inspector/api/runs/{id}`` alone (over HTTP, with the bytes it sends), and the page's open;
the ratios say how the time grows with the steps (2.5x the steps costing 2.5x is linear, 6x
is the square). "Opens" is from the browser's navigation start to the page having drawn
the graph, the step control, the memory and the journal (the page marks ``inspector-ready``):
the HTML, the 0.8 MB script with Graphviz in WebAssembly, the server replaying the run's
journal once, and the drawing. A step change is the slider's input handler plus the layout it
causes (memory table, changes, graph marks), over ``--changes`` changes spread over the run.
The baseline, from the same run, is the same page for a 10-step run of the same machine.
The runs list is opened on a store of 10,000 runs (``--runs``) and on one of 10. The thread page
(issue 27) is opened on a thread of 1,000 turns (``--turns``) against one of 10
(``benchmarks/_thread_page.py``): the target is under a second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selenium.webdriver.chrome.webdriver import WebDriver  # noqa: E402

from agentsm_fn.durable import Durable, RunStore, SqliteStore  # noqa: E402
from tests.inspector.conftest import open_chromium  # noqa: E402
from tests.inspector.machines import COUNTER, TRANSFERS, Count, Transfers  # noqa: E402
from tests.inspector.pages import visit  # noqa: E402
from tests.inspector.serving import Served  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from _serving import _fill as fill  # noqa: E402  # the server benchmark's store of many runs
from _thread_page import thread_page  # noqa: E402

_OPENED = "return performance.getEntriesByName('inspector-ready').pop().startTime"
_STEPPING = """
const slider = document.getElementById('step');
const last = Number(slider.max), changes = arguments[0], times = [];
for (let k = 0; k < changes; k++) {
  const t0 = performance.now();
  slider.value = String(Math.floor((k * 7919) % (last + 1)));
  slider.dispatchEvent(new Event('input'));
  document.body.offsetHeight;  // the layout the change causes
  times.push(performance.now() - t0);
}
return times;
"""


def open_ms(browser: WebDriver, url: str, page: str, repeat: int) -> float:
    """The median time from navigation start to the page being ready, in ms."""
    times = []
    for _ in range(repeat):
        visit(browser, url, page)
        times.append(float(browser.execute_script(_OPENED)))
    return statistics.median(times)


def list_ms(browser: WebDriver, folder: Path, runs: int, repeat: int) -> float:
    """The median time to open the runs list (the first page, the waiting runs) with ``runs`` stored.

    Each server is asked for the two pages once: on main at 3195c82, the sixth open of the list
    from one server in one browser never showed its runs (the five before it each left the page
    with its change stream open; Chromium opens at most six connections to one server).
    """
    times = []
    with closing(SqliteStore.open(folder / f"list-{runs}.db").unwrap()) as store:
        fill(store, runs)
        for _ in range(repeat):
            with Served(store, []) as base:
                times += [
                    open_ms(browser, f"{base}/#/", "runs", 1),
                    open_ms(browser, f"{base}/#/?status=waiting", "runs", 1),
                ]
    return statistics.median(times)


SHAPES: dict[str, tuple[Durable[Any, Any, Any], Callable[[int], object]]] = {
    "flat": (COUNTER, lambda steps: Count(target=steps)),  # steps transitions, the memory the same size
    "growing": (TRANSFERS, lambda steps: Transfers(count=steps // 2)),  # 2 * (steps // 2) + 1 transitions
}
"""The two shapes of run: a memory of the same size at every step, and one that grows as the run goes."""


def start_runs(store: RunStore, lengths: list[int]) -> dict[tuple[str, int], str]:
    """One run of each shape at each length (and a 10-step flat one, ``short``): (shape, length) -> run id."""
    COUNTER.start(store, Count(target=10), run_id="short").unwrap()
    ids = {}
    for shape, (durable, memory) in SHAPES.items():
        for steps in lengths:
            ids[shape, steps] = durable.start(store, memory(steps), run_id=f"{shape}-{steps}").unwrap().run_id
    return ids


def api_ms(base: str, run_id: str, repeat: int) -> tuple[float, int]:
    """The median time of ``GET /inspector/api/runs/{run_id}`` over HTTP, in ms, and the bytes it sends."""
    times, size = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base}/inspector/api/runs/{run_id}") as answer:
            size = len(answer.read())
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), size


def _growth(lengths: list[int], figures: dict[int, float]) -> str:
    first, last = lengths[0], lengths[-1]
    return f" ({last / first:.1f}x the steps: {figures[last] / figures[first]:.2f}x)" if last != first else ""


def shapes_ms(
    browser: WebDriver, store: RunStore, lengths: list[int], repeat: int, changes: int
) -> tuple[float, dict[str, dict[int, tuple[float, int, float]]], list[float]]:
    """The 10-step run's open; each shape's (view ms, view bytes, page ms) by length; the step changes."""
    ids = start_runs(store, lengths)
    found: dict[str, dict[int, tuple[float, int, float]]] = {shape: {} for shape in SHAPES}
    with Served(store, [COUNTER, TRANSFERS]) as base:
        api_ms(base, "short", 1)  # warm: the first view imports the verifier's networkx
        open_ms(browser, f"{base}/#/runs/short", "run", 1)  # warm: the first visit compiles the WebAssembly
        short = open_ms(browser, f"{base}/#/runs/short", "run", repeat)
        for (shape, steps), run_id in ids.items():
            found[shape][steps] = (
                *api_ms(base, run_id, repeat),
                open_ms(browser, f"{base}/#/runs/{run_id}", "run", repeat),
            )
        times = [
            float(t) for t in browser.execute_script(_STEPPING, changes)
        ]  # on the last: growing, longest
    return short, found, sorted(times)


def report(short: float, found: dict[str, dict[int, tuple[float, int, float]]], times: list[float]) -> None:
    """Print each shape's figures, how they grow with the steps, and the targets."""
    lengths = sorted(found["flat"])
    last = lengths[-1]
    print(f"open a 10-step run: {short:.0f} ms")
    for shape, figures in found.items():
        print(f"{shape} memory:")
        for steps, (took, size, page) in figures.items():
            print(
                f"  {steps} steps: GET /inspector/api/runs/{{id}} {took:.0f} ms ({size / 1000:.0f} kB);"
                f" open the page {page:.0f} ms ({page / short:.2f}x the 10-step run)"
            )
        views = {steps: f[0] for steps, f in figures.items()}
        pages = {steps: f[2] for steps, f in figures.items()}
        print(f"  the view grows{_growth(lengths, views)}; the page's open{_growth(lengths, pages)}")
    grow, flat = found["growing"][last], found["flat"][last]
    print(
        f"growing against flat at {last} steps: {grow[2] / flat[2]:.2f}x the page's open,"
        f" {grow[0] / flat[0]:.2f}x the view"
    )
    met = "met" if max(grow[2], flat[2]) < 1000 else "NOT met"
    print(f"  target: under 1000 ms to open a {last}-step run of either shape -> {met}")
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(
        f"step change on the growing {last}-step run: median {statistics.median(times):.1f} ms,"
        f" p95 {p95:.1f} ms over {len(times)} changes (a frame is 16.7 ms)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[400, 1000])
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10_000, help="runs stored for the runs list (0: skip it)")
    parser.add_argument("--turns", type=int, default=1000, help="the thread page's turns (0: skip)")
    parser.add_argument("--only-thread", action="store_true", help="measure the thread page alone")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        browser = open_chromium()
        try:
            if args.turns:
                thread_page(browser, store, args.turns, args.repeat)
            if not args.only_thread:
                report(*shapes_ms(browser, store, sorted(args.steps), args.repeat, args.changes))
            if args.runs and not args.only_thread:
                few = list_ms(browser, Path(folder), 10, args.repeat)
                many = list_ms(browser, Path(folder), args.runs, args.repeat)
                print(
                    f"open the runs list: 10 runs stored {few:.0f} ms;"
                    f" {args.runs} runs stored {many:.0f} ms ({many / few:.2f}x)"
                )
        finally:
            browser.quit()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) when done: {load} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
