"""The thread page's figure for benchmarks/inspector.py: a thread of many turns opened in headless Chromium.

The thread is the support chat example's agent on its offline LLM (``tests/inspector/threads.py``),
with no context budget, so every turn's answer stays in the conversation and the page shows every
one of them (a budget would compress the older turns, which the page then shows by their message
alone: less to draw). Turns alternate a message answered after a tool call (folded under the
answer) and one answered at once. "Open" is from the browser's navigation start to the page having
drawn the conversation and painted it (its ``inspector-painted`` mark, set after the frame that
follows ``inspector-ready``); the baseline is a 10-turn thread of the same agent in the same run.
"""

from __future__ import annotations

import statistics
import time
import urllib.request
from typing import Any

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from agentsm_fn.durable import Durable, SqliteStore
from tests.inspector.pages import WAIT, visit
from tests.inspector.serving import Served
from tests.inspector.threads import desk

_OPENED = """
const [ready] = performance.getEntriesByName('inspector-ready');
const [painted] = performance.getEntriesByName('inspector-painted');
return painted ? [ready.startTime, painted.startTime, document.querySelectorAll('li.turn').length] : null;
"""


def fill_thread(store: SqliteStore, agent: Durable[Any, Any, Any], thread_id: str, turns: int) -> None:
    """``turns`` turns in thread ``thread_id``: a tool call then an answer, and an answer, by turns."""
    for number in range(turns):
        message = "Where is order A-17?" if number % 2 else f"Thanks! ({number})"
        agent.chat(store, thread_id, message).unwrap()


def open_thread_ms(browser: WebDriver, url: str, turns: int, repeat: int) -> tuple[float, float]:
    """The median time from navigation to the thread page painted (ms), and from its data drawn to painted."""
    opens, paints = [], []
    for _ in range(repeat):
        visit(browser, url, "thread")
        ready, painted, shown = WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(_OPENED))
        assert shown == turns, f"the page shows {shown} turns of {turns}"
        opens.append(float(painted))
        paints.append(float(painted) - float(ready))
    return statistics.median(opens), statistics.median(paints)


def view_ms(base: str, thread_id: str, repeat: int) -> tuple[float, int]:
    """The median time of ``GET /inspector/api/threads/{thread_id}`` over HTTP (ms), and its bytes."""
    times, size = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base}/inspector/api/threads/{thread_id}") as answer:
            size = len(answer.read())
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), size


def thread_page(browser: WebDriver, store: SqliteStore, turns: int, repeat: int) -> None:
    """Print the open of a ``turns``-turn thread's page against a 10-turn thread's, and the view's time."""
    agent = desk(context=None)
    started = time.perf_counter()
    fill_thread(store, agent, "short", 10)
    fill_thread(store, agent, "long", turns)
    print(f"thread page: {turns} turns made in {time.perf_counter() - started:.1f} s (not measured below)")
    with Served(store, [agent]) as base:
        open_thread_ms(browser, f"{base}/#/threads/short", 10, 1)  # warm
        short, _ = open_thread_ms(browser, f"{base}/#/threads/short", 10, repeat)
        long, paint = open_thread_ms(browser, f"{base}/#/threads/long", turns, repeat)
        took, size = view_ms(base, "long", repeat)
    print(f"  open a 10-turn thread: {short:.0f} ms")
    print(
        f"  open a {turns}-turn thread: {long:.0f} ms ({long / short:.2f}x the 10-turn thread;"
        f" of it, from drawn to painted {paint:.0f} ms);"
        f" GET /inspector/api/threads/{{id}} {took:.0f} ms ({size / 1000:.0f} kB)"
    )
    met = "met" if long < 1000 else "NOT met"
    print(f"  target: under 1000 ms to open a {turns}-turn thread -> {met}")
