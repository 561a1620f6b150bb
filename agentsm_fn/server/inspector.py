"""The run inspector's routes: the page at ``/``, its files at ``/inspector/``, its views under it.

The page (:mod:`agentsm_fn.inspector`, built from ``web/``) calls the JSON API of the other
route modules (``/runs``, ``/machines``, ``/threads``, answers, forks, the event stream); these
routes add only what the page needs beyond it: a run's view from one replay (every step's memory
and what changed), a machine's view (the verifier's findings and the changed-machine check), two
runs compared, a thread as a chat, and which thread each listed run is a turn of. Like every
route, they sit behind the server's guard and answer errors as its JSON; the page and its files
(:data:`PAGE_PATHS`, no run data in them) are the only paths a token-protected server serves
without the token, so a browser can load the page, which asks for the token once and sends it
as ``Authorization: Bearer`` on every API call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Header, Query, Response
from fastapi.responses import JSONResponse

from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.stores.protocol.experiments import ExperimentStore
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStore
from agentsm_fn.inspector import (
    ASSETS,
    case_view,
    compare_views,
    experiment_view,
    experiments_view,
    machine_view,
    run_view,
)
from agentsm_fn.inspector.run_view import steps_view
from agentsm_fn.inspector.thread_view import run_threads, thread_view, turn_view
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import ApiError
from agentsm_fn.server.runs import unwrapped
from agentsm_fn.server.threads import thread_of, threaded

__all__ = ["PAGE_PATHS", "inspector_routes"]

_RunView = Callable[[RunStore, Durable[Any, Any, Any], RunRecord], dict[str, JsonValue]]

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}


PAGE_PATHS = frozenset(
    ["/", *(f"/inspector/{name}" for name in ("index.html", "app.js", "app.css", "LICENSES.txt"))]
)
"""The page and its files: served without the token (they are the same for everyone and hold no run)."""


_IF_NONE_MATCH = Header(default=None, max_length=1000)

_RUNS = Query(default=None, max_length=100, description="a run's id (repeated: at most 100)")


@lru_cache(maxsize=8)
def _asset_file(name: str) -> tuple[bytes, str] | None:
    """A page file's bytes and their ETag (a digest), read once per process: the files never change."""
    suffix = name[name.rfind(".") :] if "." in name else ""
    path = ASSETS / name
    if "/" in name or name.startswith(".") or suffix not in _TYPES or not path.is_file():
        return None
    body = path.read_bytes()
    return body, '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def _asset(name: str, if_none_match: str | None) -> Response:
    """The file, or 304 when the browser holds these bytes already (``no-cache``: it always asks)."""
    found = _asset_file(name) if f"/inspector/{name}" in PAGE_PATHS else None
    if found is None:
        raise ApiError(404, "not_found", f"the inspector has no file {name!r}")
    body, etag = found
    headers = {"cache-control": "no-cache", "etag": etag}
    if if_none_match is not None and etag in (tag.strip() for tag in if_none_match.split(",")):
        return Response(status_code=304, headers=headers)
    suffix = name[name.rfind(".") :]
    return Response(body, media_type=_TYPES[suffix], headers=headers)


def inspector_routes(ctx: ServerContext) -> APIRouter:
    """The inspector's page, files and views over ``ctx``'s store and machines."""
    routes = APIRouter()

    def view(run_id: str, of: _RunView = run_view) -> dict[str, JsonValue]:
        record = unwrapped(ctx.store.get(run_id))
        return of(ctx.store, ctx.durable(record.machine), record)

    @routes.get("/", include_in_schema=False)
    def index(if_none_match: str | None = _IF_NONE_MATCH) -> Response:
        return _asset("index.html", if_none_match)

    @routes.get("/inspector/{name}", include_in_schema=False)
    def asset(name: str, if_none_match: str | None = _IF_NONE_MATCH) -> Response:
        return _asset(name, if_none_match)

    @routes.get("/inspector/api/runs/{run_id}", tags=["inspector"])
    def one_run(run_id: str) -> JSONResponse:
        """A run as the inspector shows it: graph, every step's memory changes, journal, chat, forks."""
        return JSONResponse(view(run_id))

    @routes.get("/inspector/api/machines/{name}", tags=["inspector"])
    def one_machine(name: str) -> JSONResponse:
        """A machine's graph with the verifier's findings, and which stored runs its code would diverge on."""
        return JSONResponse(machine_view(ctx.store, ctx.durable(name)))

    def experiments() -> ExperimentStore:
        if not isinstance(ctx.store, ExperimentStore):
            raise ApiError(404, "not_found", "this store keeps no experiments")
        return ctx.store

    def found(view: dict[str, JsonValue] | None, what: str) -> JSONResponse:
        if view is None:
            raise ApiError(404, "not_found", f"no experiment {what} is stored")
        return JSONResponse(view)

    @routes.get("/inspector/api/experiments", tags=["inspector"])
    def all_experiments() -> JSONResponse:
        """Every experiment in the store, newest first: its cases, runs, passes and mean score."""
        return JSONResponse(unwrapped(experiments_view(experiments())))

    @routes.get("/inspector/api/experiments/{name}", tags=["inspector"])
    def one_experiment(name: str) -> JSONResponse:
        """An experiment's case runs with every evaluator's grade, its evaluators, the other experiments."""
        return found(unwrapped(experiment_view(experiments(), name)), name)

    @routes.get("/inspector/api/experiments/{a}/{b}/cases/{case}", tags=["inspector"])
    def one_case(a: str, b: str, case: str) -> JSONResponse:
        """Case ``case`` in experiments ``a`` and ``b``: each one's runs of it and their grades."""
        return found(unwrapped(case_view(experiments(), case, a, b)), f"{a} or {b}")

    @routes.get("/inspector/api/threads/{thread_id}", tags=["inspector"])
    def one_thread(thread_id: str) -> JSONResponse:
        """A thread as the inspector shows it: each turn with its run, its answer, the tool calls under it."""
        durable = ctx.durable(thread_of(ctx, thread_id).machine)
        return JSONResponse(threaded(thread_view(ctx.store, durable, thread_id)))

    @routes.get("/inspector/api/threads/{thread_id}/turns/{turn}", tags=["inspector"])
    def one_turn(thread_id: str, turn: int) -> JSONResponse:
        """One ended turn's answer and tool calls (for a turn the thread's summary stands for)."""
        durable = ctx.durable(thread_of(ctx, thread_id).machine)
        return JSONResponse(threaded(turn_view(ctx.store, durable, thread_id, turn)))

    @routes.get("/inspector/api/turns-of", tags=["inspector"])
    def turns_of(run: list[str] | None = _RUNS) -> JSONResponse:
        """Which threads (and turns) each named run is a turn of: ``{run_id: [{thread_id, turn}]}``."""
        return JSONResponse(unwrapped(run_threads(ctx.store, run or [])))

    @routes.get("/inspector/api/compare/{a}/{b}", tags=["inspector"])
    def compare(a: str, b: str) -> JSONResponse:
        """Two runs side by side: the step where their paths part, and each step's memory differences."""
        return JSONResponse(compare_views(view(a, steps_view), view(b, steps_view)))  # only their steps

    return routes
