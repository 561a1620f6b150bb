"""Serving the app with uvicorn: ``agentsm-runs --db FILE serve [--host H] [--port P] module:DURABLE...``."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Sequence

import uvicorn

from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.server.app import ROUTERS, RouterFactory, create_app
from agentsm_fn.server.context import AnyDurable
from agentsm_fn.server.security import TOKEN_ENV, bind_problem

__all__ = ["MIN_TOKEN", "serve_runs", "token_from"]

MIN_TOKEN = 16
"""The fewest characters a token may have: a shorter one is refused at startup (it could be guessed)."""


def token_from(given: str | None) -> str | None:
    """The token: ``--token`` if given, else ``$AGENTSM_RUNS_TOKEN``, else None.

    Example:
        >>> token_from("abc")
        'abc'
    """
    return given or os.environ.get(TOKEN_ENV) or None


def serve_runs(
    store: RunStore,
    durables: Sequence[AnyDurable],
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    announce: str | None = None,
    routers: Sequence[RouterFactory] = ROUTERS,
) -> int:
    """Serve ``store``'s runs of ``durables`` until interrupted; 2 if ``host`` or a short token is refused.

    The address is bound before it is announced: ``announce`` (or a line naming the address) is printed
    only once the server holds its port, and a port that cannot be bound (taken, say) is 1 with its reason.
    ``routers`` are the app's (``create_app``'s), with AG-UI's: :func:`~agentsm_fn.server.agui.with_agui`.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> serve_runs(SqliteStore.open(":memory:").unwrap(), [], host="0.0.0.0")
        2
        >>> serve_runs(SqliteStore.open(":memory:").unwrap(), [], token="short")
        2
    """
    problem = bind_problem(host, token)
    if token is not None and len(token) < MIN_TOKEN:
        problem = f"the token is too short: give at least {MIN_TOKEN} characters (--token or {TOKEN_ENV})"
    if problem is not None:
        print(f"agentsm-runs serve: {problem}", file=sys.stderr)
        return 2
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listening = socket.create_server((host, port), family=family)
    except OSError as exc:
        print(f"agentsm-runs serve: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(announce or f"agentsm-runs serve: serving on http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
    app = create_app(store, durables, token=token, routers=routers)
    config = uvicorn.Config(app, host=host, port=port, log_level="info", access_log=False)
    with listening, contextlib.suppress(KeyboardInterrupt):  # uvicorn stops on Ctrl-C, then raises it again
        uvicorn.Server(config).run(sockets=[listening])
    return 0
