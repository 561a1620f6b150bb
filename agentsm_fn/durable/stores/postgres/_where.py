"""A PostgreSQL database as it may be shown: its connection string without the password.

A connection string's password (in the URL, or ``password=`` in key-value form) never
appears in a failure: every message is passed through :func:`Where.redact`, and the
database is named by :attr:`Where.shown` (the string without password or query). The
connection (``_connection``) and its group writes (``_group``) both build on it.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

import attrs
import psycopg
from psycopg.conninfo import conninfo_to_dict

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.shell.credentials import redact_credentials, redact_values

__all__ = ["Where", "where"]


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
