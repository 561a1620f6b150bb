"""Reaching into a store's database from a test (to play another process, or corrupt a row)."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

import pytest

from agentsm_fn.durable import JournalRow, RunStore, is_postgres
from agentsm_fn.durable.stores.sql.group import Groups


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


def group_sizes(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every group ``store`` writes from now on."""
    sizes: list[int] = []
    real = groups_of(store).write_group

    def counted(ops: list[object]) -> object:
        sizes.append(len(ops))
        return real(ops)

    monkeypatch.setattr(groups_of(store), "write_group", counted)
    return sizes


def entry(seq: int, outcome: bytes | None = None, waiting: bool = False) -> JournalRow:
    """A journal row at ``seq``: started (no outcome), with ``outcome``, or ``waiting`` for an answer."""
    return JournalRow(
        seq=seq,
        digest=b"d",
        ticks=(1.5,),
        outcome=outcome,
        at=None if outcome is None else 2.0,
        waiting=waiting,
        effect=b"e" if waiting else None,
    )
