"""What clients that drop mid-stream cost the server: lines it logs, tasks it holds, and the events they get.

``--runs`` live runs of ``--steps`` effects each (paced by this script, in threads:
``tests.server.dropping``), served by uvicorn on 127.0.0.1. One client per run lets its run take
``--move`` steps (3 events each), reads ``--read`` events of ``GET /runs/{id}/events`` and drops
its connection while the server still has events to send, then comes back with
``Last-Event-ID``, until its run ended. Printed: the dropped connections, the lines of asyncio's
"socket.send() raised exception." (one per write to a lost connection, from the fifth on) and
per dropped connection, and whether every client got every event once, in order. Then three
clients of each of ``--runs`` other live runs read their first event and drop as the runs move
on: the tasks the server still holds (streams, followers), waited for at most 5 s, while the runs
are still live. Then ``--runs`` AG-UI runs whose client drops after the run's first step: the
lines logged. No timing: counts. Run at the commit before the fix, it prints the before figures.

    python benchmarks/dropped.py [--runs 6] [--steps 300] [--read 5] [--move 20] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' live server, paced runs and dropping clients

import httpx  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from httpx_sse import connect_sse  # noqa: E402

from agentsm_fn.durable import SqliteStore, stored_events  # noqa: E402
from agentsm_fn.server import create_app  # noqa: E402
from agentsm_fn.server.agui import agui_routes  # noqa: E402
from agentsm_fn.stream import history_position  # noqa: E402
from tests.agui.agents import ORDERS_AGUI  # noqa: E402
from tests.server.dropping import GATED, GatedRun, counting_send_errors, drop_and_return  # noqa: E402
from tests.server.live import serving_live  # noqa: E402


def dropping(folder: Path, runs: int, steps: int, read: int, move: int) -> tuple[int, int, bool]:
    """Dropped connections, send-error lines, and whether every client got every event once, in order."""
    db = folder / "drops.db"
    with (
        closing(SqliteStore.open(db).unwrap()) as store,
        serving_live(create_app(store, [GATED], poll_interval=0.01)) as live,
        counting_send_errors() as logged,
    ):
        gated = [GatedRun(db, f"run-{n}", steps) for n in range(runs)]
        with ThreadPoolExecutor(runs) as pool:
            visits = list(pool.map(lambda run: drop_and_return(live.url, run, read, move, 4 * steps), gated))
        for run in gated:
            run.finish()
        once = all(
            visit.ended
            and list(visit.positions)
            == [
                p
                for p in map(history_position, stored_events(store, GATED, run.run_id).unwrap())
                if p is not None
            ]
            for run, visit in zip(gated, visits, strict=True)
        )
        live.held()
    return sum(visit.connections - 1 for visit in visits), logged.send_errors, once


def held_after_leaving(folder: Path, runs: int, steps: int, move: int) -> Counter[str]:
    """The server's tasks left 5 s (at most) after three clients of each live run dropped, by coroutine."""
    db = folder / "held.db"
    with (
        closing(SqliteStore.open(db).unwrap()) as store,
        serving_live(create_app(store, [GATED], poll_interval=0.01)) as live,
    ):
        gated = [GatedRun(db, f"run-{n}", steps) for n in range(runs)]
        with ExitStack() as clients, httpx.Client(timeout=30) as http:
            reading = []
            for run in gated:
                for _ in range(3):
                    source = clients.enter_context(
                        connect_sse(http, "GET", f"{live.url}/runs/{run.run_id}/events")
                    )
                    reading.append(source.iter_sse())
                    next(reading[-1])
                run.gate.release(move)
        held = Counter(live.held(timeout=5.0))
        for run in gated:
            run.finish()
        live.held()
    return held


def agui_dropping(folder: Path, runs: int, items: int) -> int:
    """Send-error lines of ``runs`` AG-UI runs of ``items`` items whose client drops after the first step."""
    with closing(SqliteStore.open(folder / "agui.db").unwrap()) as store:
        app = FastAPI()
        app.include_router(agui_routes(store, [ORDERS_AGUI]))
        with serving_live(app) as live, counting_send_errors() as logged, httpx.Client(timeout=30) as http:
            for n in range(runs):
                body = {"threadId": "t", "runId": f"agui-{n}", "state": {"items": items}, "messages": []}
                with http.stream("POST", f"{live.url}/agui/{ORDERS_AGUI.name}", json=body) as response:
                    any('"STEP_STARTED"' in line for line in response.iter_lines())
            live.held()  # the runs go on to their end
        return logged.send_errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=6, help="live runs (default 6)")
    parser.add_argument("--steps", type=int, default=300, help="effects of each run (default 300)")
    parser.add_argument(
        "--read", type=int, default=5, help="events a client reads before it drops (default 5)"
    )
    parser.add_argument("--move", type=int, default=20, help="steps a client lets its run take (default 20)")
    parser.add_argument("--quick", action="store_true", help="2 runs of 20 steps")
    args = parser.parse_args(argv)
    runs, steps = (2, 20) if args.quick else (args.runs, args.steps)
    folder = Path(tempfile.mkdtemp())
    drops, lines, once = dropping(folder, runs, steps, args.read, args.move)
    print(f"GET /runs/{{id}}/events: {runs} live runs of {steps} effects, clients read {args.read} and drop")
    print(f"dropped connections: {drops}")
    per = lines / max(drops, 1)
    print(f'lines of "socket.send() raised exception.": {lines} ({per:.1f} per dropped connection)')
    print(f"every client got every event once, in order: {once}")
    held = held_after_leaving(folder, runs, steps, args.move)
    shown = ", ".join(f"{name} x{count}" for name, count in sorted(held.items())) or "none"
    print(f"tasks held after 3 clients of each live run dropped: {sum(held.values())} ({shown})")
    agui = agui_dropping(folder, runs, 60)
    print(f'AG-UI, {runs} runs whose client drops after the first step: {agui} lines of "socket.send() ..."')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
