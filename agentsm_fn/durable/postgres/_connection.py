"""The connections of a PostgresStore: a psycopg pool, every query a typed result, no password shown.

A connection string's password (in the URL, or ``password=`` in key-value form) never
appears in a failure: every message is passed through :func:`Where.redact`, and the
database is named by :attr:`Where.shown` (the string without password or query).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar
from urllib.parse import unquote, urlsplit

import attrs
import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool
from returns.result import Failure, Result, Success

from agentsm_fn.durable._group import Groups, fenced
from agentsm_fn.durable._reads import Rows
from agentsm_fn.durable._rows import CorruptColumn
from agentsm_fn.durable._writes import Execute, StoreWrites
from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.postgres._group import Db, Op, run_group
from agentsm_fn.shell.credentials import redact_credentials, redact_values

__all__ = ["PostgresConnection", "Where", "where"]

T = TypeVar("T")


@attrs.frozen
class Where:
    """A database as it may be shown (``shown``) and the secrets its connection string holds."""

    shown: str
    secrets: tuple[str, ...] = ()

    def redact(self, text: str) -> str:
        """``text`` without the connection string's password (nor the environment's credentials).

        A password that the marker and its neighbours would spell again (``redacted``, ``d``) is
        dropped from the text instead, so it never appears, however short.

        Example:
            >>> where("postgresql://me:pa55word@db:5432/runs").redact("auth for pa55word failed")
            'auth for [redacted] failed'
        """
        text = redact_credentials(redact_values(text, self.secrets, 1))
        left = [secret for secret in self.secrets if secret in text]
        while left:  # the text shrinks each time
            for secret in left:
                text = text.replace(secret, "")
            left = [secret for secret in self.secrets if secret in text]
        return text

    def failure(self, operation: str, exc: Exception, run_id: str = "") -> StoreFailure:
        """``exc`` as a StoreFailure of ``operation``, redacted."""
        return StoreFailure(operation=operation, detail=self.redact(str(exc)), run_id=run_id)


def where(conninfo: str) -> Where:
    """What may be shown of ``conninfo`` (a ``postgresql://`` URL or ``key=value`` pairs).

    Example:
        >>> where("postgresql://me:pa55word@db:5432/runs?sslmode=require").shown
        'postgresql://me@db:5432/runs'
        >>> where("host=db dbname=runs password=pa55word").shown
        'postgresql://db/runs'
    """
    secrets: tuple[str, ...] = ()
    if "://" in conninfo:
        url = urlsplit(conninfo)
        secrets = tuple(s for s in (url.password, unquote(url.password or ""), url.query) if s)
    try:
        parts = conninfo_to_dict(conninfo)
    except psycopg.Error:  # its message may quote the string: say nothing of it
        unparsed = "postgresql://(a connection string that does not parse)"
        return Where(shown=unparsed, secrets=(conninfo, *secrets))
    secrets += tuple(str(parts[k]) for k in ("password", "sslpassword") if parts.get(k))
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return Where(
        shown=f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}", secrets=secrets
    )


class PostgresConnection(StoreWrites):
    """A pool of connections; the store's queries build on :meth:`_do`, one transaction each.

    A write that is one statement runs on the pool's autocommit connection without ``BEGIN``
    and ``COMMIT`` (``one_statement``): the statement is its own transaction, one round trip.
    """

    def __init__(self, pool: ConnectionPool[Db], at: Where) -> None:
        self._pool = pool
        self._where = at
        self._groups: Groups[Op] = Groups(lambda ops: run_group(pool, at, ops))

    def close(self) -> None:
        """Close every connection of the pool."""
        self._pool.close()

    def _do(
        self,
        operation: str,
        work: Callable[[Db], T],
        run_id: str = "",
        one_statement: bool = False,
    ) -> Result[T, StoreFailure]:
        try:
            # getconn/putconn rather than pool.connection(): its `with connection` adds a commit
            # call per statement, and the pool's putconn rolls back (or drops) what is left open.
            db = self._pool.getconn()
            try:
                if one_statement:  # autocommit: the statement is its own transaction
                    return Success(work(db))
                with db.transaction():
                    return Success(work(db))
            finally:
                self._pool.putconn(db)
        except (psycopg.Error, CorruptColumn) as exc:
            return Failure(self._where.failure(operation, exc, run_id))

    def _fenced(self, done: Result[int, StoreFailure], run_id: str) -> Result[None, RunBusy | StoreFailure]:
        """A fenced write's result (:func:`~agentsm_fn.durable._group.fenced`, with this database's words)."""
        return fenced(done, run_id, duplicate_run='"runs_pkey"', duplicate_entry='"journal_pkey"')

    def _query(
        self,
        operation: str,
        sql: str,
        params: tuple[object, ...],
        build: Callable[[Rows], T],
        run_id: str = "",
    ) -> Result[T, StoreFailure]:
        """Run the shared reads' SQL (``?`` marks a parameter; psycopg's mark is ``%s``)."""
        return self._do(
            operation, lambda db: build(db.execute(sql.replace("?", "%s"), params).fetchall()), run_id
        )

    def _change(
        self, operation: str, work: Callable[[Execute], T], run_id: str = "", one_statement: bool = False
    ) -> Result[T, StoreFailure]:
        """Run the shared writes' SQL (``?`` marks a parameter; psycopg's mark is ``%s``)."""

        def written(db: Db) -> T:
            return work(lambda sql, params: db.execute(sql.replace("?", "%s"), params))

        return self._do(operation, written, run_id, one_statement)
