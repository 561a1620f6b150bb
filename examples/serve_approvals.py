"""Approve a waiting agent over HTTP: the human-approval agent served by agentsm_fn.server.

    python examples/serve_approvals.py                                   # all of it, offline, then stops
    python examples/serve_approvals.py --db runs.db --serve [--port 8000]   # serve a store until Ctrl-C

The email agent of ``human_approval_agent.py`` starts; it pauses when its ``send_email``
tool needs approval and waits in a SQLite store. The store is then served on 127.0.0.1
(uvicorn, a free port) and a client does what a web page would: lists what waits (``GET
/pending``), approves it and lets the run go on in the background (``POST .../answer``, a 202
at once), follows the run's events as Server-Sent Events until it finishes (``GET
/runs/{id}/events``), reads its final memory (``GET /runs/{id}/state``), and shows that a
second answer is refused (409: the email is not sent twice). ``--serve`` serves a store
until Ctrl-C for a browser or ``curl``; ``agentsm-runs --db runs.db serve
human_approval_agent:EMAIL_AGENT``, run from this folder, does the same from the command line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from httpx_sse import connect_sse
from human_approval_agent import EmailScript, ask_to_send, durable_for, make_agent, report_sent

from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.server import ROUTERS, RouterFactory, create_app
from agentsm_fn.server.serve import serve_runs
from agentsm_fn.shell.scripted_llm import ScriptedLlm


@contextmanager
def serving(
    store: SqliteStore, durable: Durable[Any, Any, Any], routers: Sequence[RouterFactory] = ROUTERS
) -> Iterator[str]:
    """The store served on 127.0.0.1 (a free port) while the block runs (``routers``: the app's); its URL."""
    app = create_app(store, [durable], routers=routers)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    stopped = threading.Event()

    def run() -> None:
        server.run()
        stopped.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    while not server.started and not stopped.wait(0.01):  # until it listens (or gave up)
        pass
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join()


def describe(event: dict[str, Any]) -> str:
    """One line for an event of the stream (its JSON form)."""
    kind = event["type"]
    if kind == "Transitioned":
        return f"{event['position']:>3} {event['state']} --{event['event']}--> {event['target']}"
    if kind == "EffectRequested":
        return f"{event['position']:>3}   asks for {event['summary']}"
    if kind == "EffectCompleted":
        return f"{event['position']:>3}   {event['effect']}: {event['outcome']} ({event['note']})"
    return f"{event['position']:>3} {kind} {event.get('state', '')}"


def demo() -> int:
    agent = make_agent(ScriptedLlm([ask_to_send(), report_sent()]))  # offline: a scripted LLM
    program = durable_for(agent)
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore.open(Path(folder) / "runs.db").unwrap()
        stored = program.start(store, agent.memory).unwrap()
        print(f"run {stored.run_id} waits in {stored.snapshot.state.name}")
        with serving(store, program) as url, httpx.Client(base_url=url, timeout=60) as http:
            print(f"serving the store at {url}")
            (waiting,) = http.get("/pending").json()
            print(f"GET /pending: entry {waiting['seq']} of {waiting['run_id']} waits: {waiting['summary']}")
            answer = f"/runs/{waiting['run_id']}/pending/{waiting['seq']}/answer"
            answered = http.post(answer, json={"decision": "approve", "resume": True, "wait": False})
            print(f"POST {answer}: {answered.status_code} ({answered.json()['status']}); the run goes on")
            with connect_sse(http, "GET", f"/runs/{waiting['run_id']}/events") as events:
                for event in events.iter_sse():
                    print(f"  {describe(json.loads(event.data))}")
            final = http.get(f"/runs/{waiting['run_id']}/state").json()
            print(f"final answer: {final['memory']['final_answer']}")
            again = http.post(answer, json={"decision": "reject"})
            print(f"a second answer: {again.status_code} {again.json()['error']['kind']}")
        store.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", metavar="FILE", help="the SQLite run store to serve (with --serve)")
    parser.add_argument("--serve", action="store_true", help="serve --db on 127.0.0.1 until Ctrl-C")
    parser.add_argument("--port", type=int, default=8000, help="the port for --serve (default 8000)")
    args = parser.parse_args(argv)
    if not args.serve:
        return demo()
    if not args.db:
        parser.error("--serve needs --db FILE")
    program = durable_for(make_agent(EmailScript()))  # any number of runs, started over HTTP too
    with closing(SqliteStore.open(args.db).unwrap()) as store:
        return serve_runs(store, [program], port=args.port)


if __name__ == "__main__":
    raise SystemExit(main())
