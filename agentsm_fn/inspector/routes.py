"""The inspector's routes: the page at ``/``, its files at ``/inspector/``, its views at ``/inspector/api/``.

The page itself calls the server's JSON API (``/runs``, ``/machines``, answers, forks,
the event stream); these routes add only what the page needs beyond it: a run's view
from one replay (every step's memory and what changed), a machine's view (the
verifier's findings and the changed-machine check), and two runs compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

from fastapi import APIRouter, HTTPException, Response
from fastapi.responses import JSONResponse
from returns.result import Failure

from agentsm_fn.durable.runner import Durable
from agentsm_fn.durable.store import RunStore
from agentsm_fn.inspector.compare import compare_views
from agentsm_fn.inspector.machine_view import machine_view
from agentsm_fn.inspector.plain import plain
from agentsm_fn.inspector.run_view import run_view
from agentsm_fn.llm.json import JsonValue

__all__ = ["ASSETS", "router"]

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}

ASSETS = resources.files("agentsm_fn.inspector") / "static"
"""The built page (``bash scripts/inspector.sh build`` writes it from ``web/``)."""


def _asset(name: str) -> Response:
    suffix = name[name.rfind(".") :] if "." in name else ""
    path = ASSETS / name
    if "/" in name or name.startswith(".") or suffix not in _TYPES or not path.is_file():
        raise HTTPException(404, f"the inspector has no file {name!r}")
    return Response(path.read_bytes(), media_type=_TYPES[suffix], headers={"cache-control": "no-cache"})


def router(store: RunStore, durables: Mapping[str, Durable[Any, Any, Any]]) -> APIRouter:
    """The inspector's routes over ``store``, for the machines of ``durables`` (by their names)."""
    routes = APIRouter()

    def durable(name: str) -> Durable[Any, Any, Any]:
        found = durables.get(name)
        if found is None:
            raise HTTPException(404, f"no machine {name!r} is served (served: {', '.join(sorted(durables))})")
        return found

    def view(run_id: str) -> dict[str, JsonValue]:
        record = store.get(run_id)
        if isinstance(record, Failure):
            raise HTTPException(404, plain(record.failure().describe()))
        return run_view(store, durable(record.unwrap().machine), record.unwrap())

    @routes.get("/", include_in_schema=False)
    def index() -> Response:
        return _asset("index.html")

    @routes.get("/inspector/{name}", include_in_schema=False)
    def asset(name: str) -> Response:
        return _asset(name)

    @routes.get("/inspector/api/runs/{run_id}", tags=["inspector"])
    def one_run(run_id: str) -> JSONResponse:
        """A run as the inspector shows it: graph, every step's memory changes, journal, chat, forks."""
        return JSONResponse(view(run_id))

    @routes.get("/inspector/api/machines/{name}", tags=["inspector"])
    def one_machine(name: str) -> JSONResponse:
        """A machine's graph with the verifier's findings, and which stored runs its code would diverge on."""
        return JSONResponse(machine_view(store, durable(name)))

    @routes.get("/inspector/api/compare/{a}/{b}", tags=["inspector"])
    def compare(a: str, b: str) -> JSONResponse:
        """Two runs side by side: the step where their paths part, and each step's memory differences."""
        return JSONResponse(compare_views(view(a), view(b)))

    return routes
