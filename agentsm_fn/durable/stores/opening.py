"""Open a store by name: a SQLite file, or a PostgreSQL connection string.

``postgresql://...`` and ``postgres://...`` (or libpq's ``key=value`` form with a ``dbname=``
or ``host=``) open a :class:`~agentsm_fn.durable.stores.postgres.PostgresStore`, whose driver is
imported only then; anything else is the path of a SQLite file.
"""

from __future__ import annotations

import os
import re

from returns.result import Failure, Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.sqlite import SqliteStore

__all__ = ["is_postgres", "no_store_yet", "open_store"]

_KEY_VALUE = re.compile(r"(?:^|\s)(?:host|hostaddr|dbname|service)\s*=")


def is_postgres(db: str) -> bool:
    """Whether ``db`` names a PostgreSQL database rather than a SQLite file.

    Example:
        >>> is_postgres("postgresql://me@db/runs"), is_postgres("host=db dbname=runs"), is_postgres("runs.db")
        (True, True, False)
    """
    return db.startswith(("postgresql://", "postgres://")) or bool(_KEY_VALUE.search(db))


def open_store(db: str, create: bool = True) -> Result[RunStore, StoreFailure]:
    """The store ``db`` names; with ``create`` False, only one that exists (nothing is made by reading).

    A failure never shows a connection string's password.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.db")
        >>> open_store(path, create=False).failure().detail
        ... # doctest: +ELLIPSIS
        'no store at .../runs.db'
        >>> store = open_store(path).unwrap()
        >>> store.runs().unwrap()
        ()
        >>> store.close()
    """
    if is_postgres(db):
        from agentsm_fn.durable.stores.postgres import PostgresStore  # noqa: PLC0415  # the driver: only now

        return PostgresStore.open(db, create=create)
    if not create and not os.path.exists(db):  # never create an empty store by reading a mistyped path
        return Failure(StoreFailure(operation="open", detail=f"no store at {db}"))
    if not create and os.path.isfile(db) and os.path.getsize(db) == 0:  # nor make a store of an empty file
        return Failure(StoreFailure(operation="open", detail=f"{db} is not a run store: it is empty"))
    return SqliteStore.open(db)


def no_store_yet(db: str, failure: StoreFailure) -> bool:
    """Whether ``open_store(db, create=False)`` failed only because ``db`` holds no store yet.

    Then ``agentsm-runs --db DB init`` (``open_store(db)``) makes one: a SQLite file that does
    not exist or is empty, or a PostgreSQL database (or schema) without tables.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.db")
        >>> no_store_yet(path, open_store(path, create=False).failure())
        True
    """
    if is_postgres(db):
        return failure.detail.endswith(_NO_POSTGRES_STORE)
    return not os.path.exists(db) or (os.path.isfile(db) and os.path.getsize(db) == 0)


_NO_POSTGRES_STORE = " holds no run store"
"""How :meth:`PostgresStore.open <agentsm_fn.durable.stores.postgres.PostgresStore.open>` ends the detail of a
database without a store (``create=False``)."""
