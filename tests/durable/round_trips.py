"""Counting the round trips a PostgresStore makes to its server, through psycopg's ``Connection.wait``.

psycopg runs every exchange with the server (a statement, ``BEGIN``, ``COMMIT``) as a generator
handed to ``Connection.wait``; one call is one round trip, except a commit of a connection that is
in no transaction (a pool returning an autocommit connection), which sends nothing: not counted.
In pipeline mode a statement's call only sends it (and reads what has already come back, without
waiting); the sync that ends the pipeline waits for every result: only that call is counted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator

import psycopg
import pytest
from psycopg import pq


class RoundTrips:
    """The round trips of every psycopg connection of this process while counting (see the module)."""

    def __init__(self) -> None:
        self.count = 0


def count_round_trips(monkeypatch: pytest.MonkeyPatch) -> RoundTrips:
    """Count from now until the test ends (``monkeypatch`` undoes it)."""
    counted = RoundTrips()
    monkeypatch.setattr(psycopg.Connection, "wait", _counting(psycopg.Connection.wait, counted))
    return counted


@contextlib.contextmanager
def round_trips_counted() -> Iterator[RoundTrips]:
    """Count while the context is open (outside a test: the benchmarks count this way)."""
    counted = RoundTrips()
    wait = psycopg.Connection.wait
    setattr(psycopg.Connection, "wait", _counting(wait, counted))  # noqa: B010  # mypy: a method cannot be assigned
    try:
        yield counted
    finally:
        setattr(psycopg.Connection, "wait", wait)  # noqa: B010


Wait = Callable[..., object]


def _counting(wait: Wait, counted: RoundTrips) -> Wait:
    def counting(
        self: psycopg.Connection[tuple[object, ...]], gen: Generator[object, object, object], *args: float
    ) -> object:
        idle = self.pgconn.transaction_status == pq.TransactionStatus.IDLE
        name = getattr(gen, "__name__", "")
        if self._pipeline is not None:  # a statement is only sent; the sync (the block's end) waits
            counted.count += name not in ("_enter_gen", "_execute_gen")
        elif not (idle and name == "_commit_gen"):
            counted.count += 1
        return wait(self, gen, *args)

    return counting
