"""The HTTP server over a run store (extra ``server``).

A JSON API with an OpenAPI document and Server-Sent Events of runs.
``create_app(store, durables)`` is the ASGI app; ``agentsm-runs serve`` serves it with uvicorn.
``import agentsm_fn`` imports none of this.
"""

from agentsm_fn.server.app import ROUTERS, RouterFactory, create_app
from agentsm_fn.server.context import AnyDurable, ServerContext, memory_type
from agentsm_fn.server.errors import ApiError, error_for
from agentsm_fn.server.security import TOKEN_ENV, bind_problem
from agentsm_fn.server.values import public_json

__all__ = [
    "ROUTERS",
    "TOKEN_ENV",
    "AnyDurable",
    "ApiError",
    "RouterFactory",
    "ServerContext",
    "bind_problem",
    "create_app",
    "error_for",
    "memory_type",
    "public_json",
]
