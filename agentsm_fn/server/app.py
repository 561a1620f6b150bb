"""``create_app``: the ASGI application over a run store, composed of route modules.

The app is the routers of :data:`ROUTERS` (each a function ``(ctx) -> APIRouter`` over one
:class:`~agentsm_fn.server.context.ServerContext`) behind the :class:`~agentsm_fn.server.security.Guard`,
with every error as JSON, behind the :class:`~agentsm_fn.server.headers.BrowserShield` (no framing,
no cross-site requests, security headers on every response). Another module adds its routes by passing
its factory in ``routers`` (``routers=(*ROUTERS, agui_router(...))``); ``/`` and ``/inspector`` are
the web inspector's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fastapi import APIRouter, FastAPI

from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.server.actions import action_routes
from agentsm_fn.server.changes import change_routes
from agentsm_fn.server.context import MAX_BODY, POLL_INTERVAL, AnyDurable, ServerContext
from agentsm_fn.server.errors import install_error_handlers
from agentsm_fn.server.events import event_routes
from agentsm_fn.server.headers import BrowserShield
from agentsm_fn.server.inspector import PAGE_PATHS, inspector_routes
from agentsm_fn.server.machines import machine_routes
from agentsm_fn.server.models import ErrorBody
from agentsm_fn.server.runs import run_routes
from agentsm_fn.server.security import Guard
from agentsm_fn.server.thread_actions import thread_action_routes
from agentsm_fn.server.threads import thread_routes

__all__ = ["ROUTERS", "RouterFactory", "create_app"]

RouterFactory = Callable[[ServerContext], APIRouter]
"""A module's routes over the server's context."""

ROUTERS: tuple[RouterFactory, ...] = (
    machine_routes,
    run_routes,
    action_routes,
    event_routes,
    change_routes,
    thread_routes,
    thread_action_routes,
    inspector_routes,
)
"""The JSON API's route modules, in the order they are matched."""

_ERRORS = {
    status: {"model": ErrorBody, "description": text}
    for status, text in (
        (401, "no token, or a wrong one"),
        (403, "a Host header that is not this machine's (no token set), or a browser's cross-site request"),
        (404, "no such run, machine, step, thread or turn"),
        (
            409,
            "refused where the run or thread stands (answered already, nothing waits, run busy, machine "
            "changed, thread busy: its last turn runs or waits)",
        ),
        (413, "the body is over the limit"),
        (415, "a POST body that is not JSON"),
        (422, "a malformed request: the detail names the field"),
    )
}


def create_app(
    store: RunStore,
    durables: Sequence[AnyDurable],
    *,
    token: str | None = None,
    max_body: int = MAX_BODY,
    poll_interval: float = POLL_INTERVAL,
    routers: Sequence[RouterFactory] = ROUTERS,
) -> FastAPI:
    """The ASGI app serving ``store``'s runs of ``durables``; mount it in your own app or serve it.

    With ``token``, every request needs ``Authorization: Bearer <token>`` (but the inspector's
    page and its files, which hold no data: the page asks for the token); without one, only
    requests to a localhost name are answered. Bodies over ``max_body`` bytes are refused. A
    streamed run that is not over is looked up in the store every ``poll_interval`` seconds.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> app = create_app(SqliteStore.open(":memory:").unwrap(), [])
        >>> "/runs/{run_id}/trace" in app.openapi()["paths"]
        True
    """
    ctx = ServerContext.of(store, durables, token=token, max_body=max_body, poll_interval=poll_interval)
    app = FastAPI(
        title="agentsm-fn runs",
        summary="Stored durable runs and threads: list, inspect, replay, fork, resume, answer, chat, stream.",
        version="1",
        docs_url=None,
        redoc_url=None,
        responses=_ERRORS,  # type: ignore[arg-type]  # FastAPI's own annotation is dict[int | str, dict[str, Any]]
    )
    install_error_handlers(app)
    for factory in routers:
        app.include_router(factory(ctx))
    app.state.context = ctx
    public = PAGE_PATHS if inspector_routes in routers else ()
    app.add_middleware(Guard, token=ctx.token, max_body=ctx.max_body, public=public)
    app.add_middleware(BrowserShield)  # added last, so outermost: its headers are on the Guard's refusals too
    return app
