"""Counting the round trips a PostgresStore makes to its server, through psycopg's ``Connection.wait``.

psycopg runs every exchange with the server (a statement, ``BEGIN``, ``COMMIT``) as a generator
handed to ``Connection.wait``; one call is one round trip, except a commit of a connection that is
in no transaction (a pool returning an autocommit connection), which sends nothing: not counted.
"""

from __future__ import annotations

from collections.abc import Generator

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
    wait = psycopg.Connection.wait

    def counting(
        self: psycopg.Connection[tuple[object, ...]], gen: Generator[object, object, object], *args: float
    ) -> object:
        idle = self.pgconn.transaction_status == pq.TransactionStatus.IDLE
        if not (idle and getattr(gen, "__name__", "") == "_commit_gen"):
            counted.count += 1
        return wait(self, gen, *args)  # type: ignore[arg-type]  # psycopg's generator type is private

    monkeypatch.setattr(psycopg.Connection, "wait", counting)
    return counted
