"""Benchmark of the run inspector in headless Chromium: opening a long run, and moving its step control.

Run: .venv/bin/python benchmarks/inspector.py [--steps 1000] [--changes 200]

Targets (issue 22): a run with 1,000 steps opens in under a second, and its step control
stays responsive. "Opens" is from the browser's navigation start to the page having drawn
the graph, the step control, the memory and the journal (the page marks ``inspector-ready``):
the HTML, the 0.8 MB script with Graphviz in WebAssembly, the server replaying the run's
journal once, and the drawing. A step change is the slider's input handler plus the layout it
causes (memory table, changes, graph marks), over ``--changes`` changes spread over the run.
The baseline, from the same run, is the same page for a 10-step run of the same machine.
The runs list is opened on a store of 10,000 runs (``--runs``) and on one of 10.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selenium.webdriver.chrome.webdriver import WebDriver  # noqa: E402

from agentsm_fn.durable import SqliteStore  # noqa: E402
from agentsm_fn.inspector.run_view import run_view  # noqa: E402
from tests.inspector.conftest import open_chromium  # noqa: E402
from tests.inspector.machines import COUNTER, Count  # noqa: E402
from tests.inspector.pages import visit  # noqa: E402
from tests.inspector.serving import Served  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from _serving import _fill as fill  # noqa: E402  # the server benchmark's store of many runs

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
    """The median time to open the runs list (the first page, the waiting runs) with ``runs`` stored."""
    with closing(SqliteStore.open(folder / f"list-{runs}.db").unwrap()) as store:
        fill(store, runs)
        with Served(store, []) as base:
            return statistics.median(
                [
                    open_ms(browser, f"{base}/#/", "runs", repeat),
                    open_ms(browser, f"{base}/#/?status=waiting", "runs", repeat),
                ]
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10_000)
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        COUNTER.start(store, Count(target=10), run_id="short").unwrap()
        COUNTER.start(store, Count(target=args.steps), run_id="long").unwrap()
        record = store.get("long").unwrap()
        run_view(store, COUNTER, record)  # warm: the first view imports the verifier's networkx
        started = time.perf_counter()
        view = run_view(store, COUNTER, record)
        replay_ms = (time.perf_counter() - started) * 1000
        assert len(view["steps"]) == args.steps + 1  # type: ignore[arg-type]  # the view is JSON data
        browser = open_chromium()
        try:
            with Served(store, [COUNTER]) as base:
                open_ms(
                    browser, f"{base}/#/runs/short", "run", 1
                )  # warm: the first visit compiles the WebAssembly
                short = open_ms(browser, f"{base}/#/runs/short", "run", args.repeat)
                long = open_ms(browser, f"{base}/#/runs/long", "run", args.repeat)
                times = [float(t) for t in browser.execute_script(_STEPPING, args.changes)]
            few, many = (
                list_ms(browser, Path(folder), 10, args.repeat),
                list_ms(browser, Path(folder), args.runs, args.repeat),
            )
        finally:
            browser.quit()
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"server: the run view of a {args.steps}-step run (one replay): {replay_ms:.0f} ms")
    print(f"open a 10-step run: {short:.0f} ms; a {args.steps}-step run: {long:.0f} ms ({long / short:.2f}x)")
    print(f"  target: under 1000 ms for 1,000 steps -> {'met' if long < 1000 else 'NOT met'}")
    print(
        f"step change on the {args.steps}-step run: median {statistics.median(times):.1f} ms,"
        f" p95 {p95:.1f} ms over {len(times)} changes (a frame is 16.7 ms)"
    )
    print(
        f"open the runs list: 10 runs stored {few:.0f} ms;"
        f" {args.runs} runs stored {many:.0f} ms ({many / few:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
