"""Fixtures every test directory shares: a real PostgreSQL server, and a store of every kind.

``postgres_server`` starts one throwaway cluster for the whole session; ``postgres_url`` is a
fresh database on it for one test (dropped after). Under CI=true a missing server is a
failure, never a skip (scripts/system-packages.txt installs Debian's ``postgresql``).
``store_db`` and ``store`` are parametrized over every store (:data:`STORES`).

Every test also fails if a SqliteStore it dropped was never closed (``_no_leaked_store``): Python
3.13 warns when an open sqlite3 connection is collected, and blames whatever test runs then; this
catches the leak on 3.11 too, in the test that dropped it, with where the store was opened.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from agentsm_fn.durable import RunStore, open_store
from agentsm_fn.durable.stores.sqlite._connection import SqliteConnection
from tests.postgres import PostgresServer, postgres_binaries, throwaway_cluster

# pytester: the regression plugin's tests run pytest on folders of recordings. The plugin itself (installed as
# a pytest11 entry point; named here too, so the recordings under tests/ run wherever the package imports).
pytest_plugins = ["pytester", "agentsm_fn.regression.pytest_plugin"]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    binaries = postgres_binaries()
    if binaries is None:
        message = "PostgreSQL's initdb is missing: apt-get install postgresql (scripts/system-packages.txt)"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: never skipped)")
        pytest.skip(message)
    with throwaway_cluster(binaries) as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)


STORES = ("sqlite", "postgres")
"""Every store the parametrized suite runs against: a new store is one more name here and in store_db."""


@pytest.fixture(params=STORES)
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``--db`` and ``open_store`` take: a SQLite file's path, or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "runs.db")
    url = request.getfixturevalue("postgres_url")
    assert isinstance(url, str)
    return url


@pytest.fixture
def store(store_db: str) -> Iterator[RunStore]:
    """An open store of each kind (closed after the test)."""
    opened = open_store(store_db).unwrap()
    yield opened
    opened.close()


_LEAKED: list[str] = []
"""Where each SqliteStore collected while still open was opened (cleared by the test that sees it)."""


def _opened_at() -> str:
    """The calling frames (file:line, innermost last; none of site-packages) that opened a store: cheap."""
    frame: FrameType | None = sys._getframe(2)  # past _opened_at and the watched __init__
    lines: list[str] = []
    while frame is not None and len(lines) < 12:
        if "site-packages" not in frame.f_code.co_filename:  # not pytest's own frames: ours and the test's
            lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        frame = frame.f_back
    return "\n".join(reversed(lines))


def _closed_or_leaked(connection: sqlite3.Connection, where: str) -> None:
    """Run when a store is collected: an open connection is a leak (recorded, then closed)."""
    try:
        _ = connection.total_changes
    except sqlite3.ProgrammingError:  # closed, as it should be
        return
    connection.close()  # so 3.13 does not warn in whichever test collects it next
    _LEAKED.append(where)


@pytest.fixture(scope="session", autouse=True)
def _watch_sqlite_stores() -> Iterator[None]:
    """Record every SqliteStore opened, by weakref, so a dropped open one is seen when collected."""
    original = SqliteConnection.__init__

    def watched(self: SqliteConnection, connection: sqlite3.Connection, path: str) -> None:
        original(self, connection, path)
        where = _opened_at()
        if f"{os.sep}tests{os.sep}" in where:  # opened by a test, not a doctest: the test must close it
            weakref.finalize(self, _closed_or_leaked, connection, where).atexit = False

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SqliteConnection, "__init__", watched)
        yield
        gc.collect()  # a store dropped in a reference cycle by the last tests
        _fail_on_leaks()


@pytest.fixture(autouse=True)
def _no_leaked_store(_watch_sqlite_stores: None) -> Iterator[None]:
    """Fail a test that drops a SqliteStore without closing it (collected by then: most are, at once)."""
    yield
    _fail_on_leaks()


def _fail_on_leaks() -> None:
    if _LEAKED:
        sites = "\n\n".join(_LEAKED)
        _LEAKED.clear()
        pytest.fail(f"a SqliteStore was dropped without close(); it was opened at:\n{sites}", pytrace=False)
