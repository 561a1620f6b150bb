"""Fixtures every test directory shares: a real PostgreSQL server, and a store of every kind.

``postgres_server`` starts one throwaway cluster for the whole session; ``postgres_url`` is a
fresh database on it for one test (dropped after). Under CI=true a missing server is a
failure, never a skip (scripts/system-packages.txt installs Debian's ``postgresql``).
``store_db`` and ``store`` are parametrized over every store (:data:`STORES`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentsm_fn.durable import RunStore, open_store
from tests.postgres import PostgresServer, postgres_binaries, throwaway_cluster


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
