"""Reaching into a store's database from a test (to play another process, or corrupt a row)."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

from agentsm_fn.durable import RunStore, is_postgres
from agentsm_fn.durable._group import Groups


def execute(db: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Run ``sql`` (``?`` placeholders, SQL both databases read) on the database ``db``; its rows."""
    if is_postgres(db):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            cursor = conn.execute(sql.replace("?", "%s"), params)
            return list(cursor.fetchall()) if cursor.description else []
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
        return list(conn.execute(sql, params).fetchall())


def groups_of(store: RunStore) -> Groups[Any]:
    """The group commits of ``store`` (each store keeps one per event loop in ``_groups``)."""
    groups = vars(store)["_groups"]
    assert isinstance(groups, Groups)
    return groups
