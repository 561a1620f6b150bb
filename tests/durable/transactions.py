"""Counting the transactions a SQLite store commits (and dying in the n-th one), through its connection.

A :class:`Transactions` is the connection's trace callback: it sees every statement, counts a
``COMMIT`` or a write outside ``BEGIN ... COMMIT`` (an autocommit transaction) as one
transaction, and with ``die_at = n`` kills the process (SIGKILL) as the n-th one is about to commit.
"""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from agentsm_fn.durable import SqliteStore

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class Transactions:
    """The transactions seen on one connection (see the module docstring)."""

    def __init__(self, die_at: int = 0) -> None:
        self.count = 0
        self.die_at = die_at
        self.inside = False

    def __call__(self, statement: str) -> None:
        words = statement.split(None, 2)
        word = words[0].upper() if words else ""
        if word == "BEGIN":
            self.inside = True
            return
        if word == "ROLLBACK" and (len(words) < 2 or words[1].upper() != "TO"):
            self.inside = False
            return
        if word == "COMMIT" or (word in WRITES and not self.inside):
            self.inside = False
            self.count += 1
            if self.count == self.die_at:
                os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def counted_store(
    path: Path, die_at: int = 0, kind: type[SqliteStore] = SqliteStore
) -> Iterator[tuple[SqliteStore, Transactions]]:
    """The store at ``path`` (created if new, a ``kind``) on a connection whose transactions are counted.

    Closed when the ``with`` block ends.
    """
    SqliteStore.open(path).unwrap().close()  # creates the tables
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    transactions = Transactions(die_at)
    connection.set_trace_callback(transactions)
    with closing(kind(connection, str(path))) as store:
        yield store, transactions
