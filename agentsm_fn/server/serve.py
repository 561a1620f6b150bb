"""Serving the app with uvicorn: ``agentsm-runs --db FILE serve [--host H] [--port P] module:DURABLE...``."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

import uvicorn

from agentsm_fn.durable.store import RunStore
from agentsm_fn.server.app import create_app
from agentsm_fn.server.context import AnyDurable
from agentsm_fn.server.security import TOKEN_ENV, bind_problem

__all__ = ["serve_runs", "token_from"]


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
) -> int:
    """Serve ``store``'s runs of ``durables`` until interrupted; 2 if ``host`` is refused (``bind_problem``).

    Example:
        >>> from agentsm_fn.durable.sqlite import SqliteStore
        >>> serve_runs(SqliteStore.open(":memory:").unwrap(), [], host="0.0.0.0")
        2
    """
    problem = bind_problem(host, token)
    if problem is not None:
        print(f"agentsm-runs serve: {problem}", file=sys.stderr)
        return 2
    app = create_app(store, durables, token=token)
    config = uvicorn.Config(app, host=host, port=port, log_level="info", access_log=False)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stops on Ctrl-C, then raises it again
        uvicorn.Server(config).run()
    return 0
