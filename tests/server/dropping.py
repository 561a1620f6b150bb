"""Live runs paced by the test, and clients of their event streams that drop mid-stream and come back.

A :class:`GatedRun` executes in a thread of this process, on its own connection to the store:
each effect (``Tick`` of :mod:`tests.server.paced`) waits for a permit of the run's gate, so
the test says how far the run may go. :func:`drop_and_return` is a client of
``GET /runs/{id}/events`` that lets the run move on, reads a few events, drops its connection
(the server has more to send), and comes back with ``Last-Event-ID``. :class:`SendErrors`
counts the lines asyncio logs for writes to a connection that was lost.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import attrs
import httpx
from httpx_sse import connect_sse

from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.shell import Performers, Shell
from agentsm_fn.stream import event_from_json, history_position
from tests.server.live import STARTUP_TIMEOUT
from tests.server.paced import PACED, Count, Tick

GATED = Durable(name="tests.server.dropping:GATED", machine=PACED)
"""The paced machine as the server knows it (it replays runs, never performs their effects)."""

SEND_ERROR = "socket.send() raised exception."
"""What asyncio logs for each write to a lost connection (from the fifth on)."""


class GatedRun:
    """A run of :data:`GATED` of ``steps`` effects in a thread: each effect waits for a permit of ``gate``."""

    def __init__(self, db: Path, run_id: str, steps: int) -> None:
        self.run_id, self.steps = run_id, steps
        self.gate = threading.Semaphore(0)
        self.started = threading.Event()
        self.finished = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(db,), daemon=True)
        self._thread.start()
        assert self.started.wait(STARTUP_TIMEOUT), f"{run_id} did not start"

    def _perform(self, effect: Tick) -> int:
        self.started.set()  # the effect's started row is stored: the run exists
        assert self.gate.acquire(timeout=STARTUP_TIMEOUT), f"{self.run_id} was never let go on"
        return effect.n

    def _run(self, db: Path) -> None:
        durable = attrs.evolve(GATED, shell=lambda: Shell(Performers().on(Tick, self._perform)))
        with closing(SqliteStore.open(db).unwrap()) as store:
            durable.start(store, Count(steps=self.steps), run_id=self.run_id).unwrap()
        self.finished.set()

    def finish(self) -> None:
        """Let the run go to its end, and wait for it."""
        self.gate.release(self.steps + 1)
        self._thread.join(STARTUP_TIMEOUT)
        assert self.finished.is_set(), f"{self.run_id} did not finish"


@attrs.frozen
class Visits:
    """What a returning client was sent: each history position, in the order received, and its connections."""

    positions: tuple[int, ...]
    connections: int
    ended: bool


def drop_and_return(url: str, run: GatedRun, read: int, move: int, visits: int) -> Visits:
    """Up to ``visits`` connections: each lets ``run`` take ``move`` steps, reads ``read`` events, drops.

    Each connection after the first says ``Last-Event-ID``: the last position received. It ends
    once the run's ``Finished`` came (``ended``).
    """
    positions: list[int] = []
    with httpx.Client(
        timeout=STARTUP_TIMEOUT
    ) as http:  # a response closed before its end closes its connection
        for visit in range(visits):
            headers = {"Last-Event-ID": str(positions[-1])} if positions else {}
            ended = _visit(http, f"{url}/runs/{run.run_id}/events", headers, run, read, move, positions)
            if ended:
                return Visits(positions=tuple(positions), connections=visit + 1, ended=True)
    return Visits(positions=tuple(positions), connections=visits, ended=False)


def _visit(
    http: httpx.Client,
    url: str,
    headers: dict[str, str],
    run: GatedRun,
    read: int,
    move: int,
    positions: list[int],
) -> bool:
    """One connection: the run moves on, ``read`` events come (into ``positions``), it drops; True: ended."""
    with connect_sse(http, "GET", url, headers=headers) as source:
        assert source.response.status_code == 200
        run.gate.release(move)
        for got, sent in enumerate(source.iter_sse(), start=1):
            assert sent.event != "error", sent.data
            position = history_position(event_from_json(sent.data).unwrap())
            if position is not None:
                positions.append(position)
            if json.loads(sent.data)["type"] == "Finished":
                return True
            if got == read:
                return False  # the connection drops here, the server still sending
    return False


class SendErrors(logging.Handler):
    """Counts the log records of writes to lost connections (and every other warning) while installed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.send_errors = 0
        self.others: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if SEND_ERROR in message:
            self.send_errors += 1
        else:
            self.others.append(f"{record.name}: {message}")


@contextmanager
def counting_send_errors() -> Iterator[SendErrors]:
    """A :class:`SendErrors` on the root logger while the block runs (the server logs from its thread)."""
    handler = SendErrors()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
