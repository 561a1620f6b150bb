"""A process that sends messages to threads when told to (the crash and concurrency tests run several).

python -m tests.threads.sender DB [NOTES]   (DB: a SQLite file or a postgresql:// URL)

For each command line on stdin (JSON: ``thread``, ``message``, ``queue``) it answers ``ready``,
waits for a ``go`` line, sends the message with ``CHATTY.chat`` and prints the outcome as one
JSON line: ``{"turn", "run_id", "reply"}``, or ``{"refused": class name, "turn", "status"}``. So
a test can start several senders at the same moment. With ``CHATTER_DIE_ON`` set, the process
kills itself in the middle of that message's turn (tests/threads/chatter.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from returns.result import Success

from agentsm_fn.durable import ThreadBusy, open_store
from tests.threads import chatter


def _send(store_db: str, command: dict[str, object]) -> dict[str, object]:
    store = open_store(store_db).unwrap()
    try:
        sent = chatter.CHATTY.chat(
            store, str(command["thread"]), str(command["message"]), queue=bool(command["queue"]), poll=0.01
        )
    finally:
        store.close()
    if isinstance(sent, Success):
        turn = sent.unwrap()
        return {"turn": turn.turn, "run_id": turn.run_id, "reply": turn.run.snapshot.memory.reply}
    error = sent.failure()
    if isinstance(error, ThreadBusy):
        return {"refused": "ThreadBusy", "turn": error.turn, "status": error.status}
    return {"error": error.describe()}


def main(argv: list[str]) -> int:
    store_db = argv[0]
    if len(argv) > 1:
        chatter.NOTES.append(Path(argv[1]))
    open_store(store_db).unwrap().close()  # the driver and the tables, before the first command
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            return 1
        print(json.dumps(_send(store_db, command)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
