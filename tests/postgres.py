"""A throwaway PostgreSQL cluster on 127.0.0.1, made with Debian's ``initdb`` and ``pg_ctl``.

:func:`throwaway_cluster` makes a cluster in a temporary directory (owned by the ``postgres``
user when we are root: ``initdb`` refuses to run as root), starts it on a free loopback port
with password authentication, yields a :class:`PostgresServer`, then stops it and removes the
directory. A test gets a fresh database from :meth:`PostgresServer.create_database` (a copy of
``template1``: 0.1 to 0.3 s here, against some 4 s for a cluster). The pytest fixtures
``postgres_server`` (one per session) and ``postgres_url`` (a fresh database per test) are in
``tests/conftest.py``; benchmarks use the context manager directly.

Debian's ``postgresql`` package (scripts/system-packages.txt) rather than a pip package that
ships a server: it is the server teams run, kept patched by the distribution, and the same
binaries work for the tests, the benchmarks and a developer's own experiments.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import attrs

__all__ = ["PostgresServer", "postgres_binaries", "throwaway_cluster"]

USER = "agentsm"
"""The cluster's superuser (not ``postgres``, so a test never relies on the default name)."""


def postgres_binaries() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` that has ``initdb`` and ``pg_ctl``, if any."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    usable = [b for b in found if (b / "pg_ctl").is_file()]
    return max(usable, key=lambda b: int(b.parent.name) if b.parent.name.isdigit() else 0, default=None)


@attrs.frozen
class PostgresServer:
    """A running cluster: where it listens and the superuser's password."""

    port: int
    password: str
    host: str = "127.0.0.1"

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        """A ``postgresql://`` connection string for ``database`` (the real password unless given)."""
        secret = self.password if password is None else password
        return f"postgresql://{USER}:{secret}@{self.host}:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database (a copy of ``template1``); its connection string."""
        import psycopg

        name = f"t_{secrets.token_hex(8)}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template1')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url`` (its open connections are ended first)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(command: list[str]) -> list[str]:
    """``command`` run as the ``postgres`` user when we are root (initdb and postgres refuse root)."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def throwaway_cluster(binaries: Path) -> Iterator[PostgresServer]:
    """A new cluster started on a free 127.0.0.1 port; stopped and deleted on exit."""
    folder = Path(tempfile.mkdtemp(prefix="agentsm-pg-"))
    data, log = folder / "data", folder / "server.log"
    password = secrets.token_urlsafe(18)
    pwfile = folder / "pwfile"
    pwfile.write_text(password + "\n")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(pwfile, "postgres", "postgres")
    started = False
    try:
        subprocess.run(
            _as_postgres(
                [
                    str(binaries / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    USER,
                    f"--pwfile={pwfile}",
                    "--auth-host=scram-sha-256",
                    "--auth-local=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--no-instructions",
                ]
            ),
            check=True,
            capture_output=True,
        )
        port = _free_port()
        # fsync=off: the tests kill processes, never the machine, and a commit survives a killed client
        # either way; it spares the shared disk a flush per commit.
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run(
            _as_postgres(
                [str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-o", options, "start"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        started = True
        yield PostgresServer(port=port, password=password)
    finally:
        if started:
            subprocess.run(
                _as_postgres([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                check=False,
                capture_output=True,
                timeout=120,
            )
        shutil.rmtree(folder, ignore_errors=True)
