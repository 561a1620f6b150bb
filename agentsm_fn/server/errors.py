"""Errors as JSON: every refusal is ``{"error": {"kind": ..., "detail": ...}}`` with a 4xx status.

:class:`ApiError` is what a route raises for a typed refusal; :func:`error_for` maps each
:data:`~agentsm_fn.durable.errors.DurableError` to its status by its type (and an
``AnswerRefused`` by its ``kind``), never by its text, and :func:`thread_error_for` each
:data:`~agentsm_fn.durable.thread_errors.ThreadError` the same way. A refusal about a turn
(``thread_busy``: the thread's last turn runs or waits) names it in the body too, as ``turn``:
``{"thread_id", "turn", "run_id", "status"}``. :func:`install_error_handlers` makes
FastAPI's own refusals (a malformed body, an unknown route, a wrong method) the same shape, and
an unexpected exception a 500 whose body says nothing of it (it is logged, redacted). Every
``detail`` passes through :func:`~agentsm_fn.shell.credentials.redact_credentials`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from agentsm_fn.durable.errors import (
    AnswerRefusal,
    AnswerRefused,
    CodecFailure,
    Diverged,
    DurableError,
    MachineChanged,
    NoSuchStep,
    NotResumable,
    RunBusy,
    RunIdRefused,
    RunNotFound,
    Stopped,
    StoreFailure,
)
from agentsm_fn.durable.thread_errors import (
    HolderUnknown,
    NoSuchTurn,
    NotConversational,
    OtherMachine,
    ThreadBusy,
    ThreadError,
    ThreadExists,
    ThreadIdRefused,
    ThreadNotFound,
)
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["ApiError", "error_body", "error_for", "install_error_handlers", "thread_error_for"]

_log = logging.getLogger(__name__)

_REFUSALS = {
    AnswerRefusal.ANSWERED_ALREADY: (409, "answered_already"),
    AnswerRefusal.WRONG_TYPE: (422, "wrong_answer_type"),
    AnswerRefusal.NOTHING_WAITS: (409, "nothing_waits"),
    AnswerRefusal.NOT_BELOW: (409, "not_below"),
}


class ApiError(Exception):
    """A request refused with ``status``; ``kind`` is a stable word a client can act on.

    Example:
        >>> ApiError(404, "run_not_found", "no stored run r9").status
        404
    """

    def __init__(
        self, status: int, kind: str, detail: str, turn: Mapping[str, str | int] | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.detail = detail
        self.turn = turn
        """The turn a refusal is about (``thread_busy``), shown in the body as ``turn``."""


def error_body(
    kind: str, detail: str, turn: Mapping[str, str | int] | None = None
) -> dict[str, dict[str, object]]:
    """The JSON body of an error, its detail redacted (and the turn it is about, if any).

    Example:
        >>> error_body("bad_request", "token sk-abcdefghijklmnopqrstuv leaked")["error"]["detail"]
        'token [redacted] leaked'
    """
    body: dict[str, object] = {"kind": kind, "detail": redact_credentials(detail)}
    if turn is not None:
        body["turn"] = {key: redact_credentials(v) if isinstance(v, str) else v for key, v in turn.items()}
    return {"error": body}


def error_for(error: DurableError) -> ApiError:
    """The HTTP refusal that reports ``error``, chosen by its type.

    Example:
        >>> error_for(RunNotFound(run_id="r1")).status
        404
    """
    detail = error.describe()
    if isinstance(error, RunNotFound):
        return ApiError(404, "run_not_found", detail)
    if isinstance(error, NoSuchStep):
        return ApiError(404, "no_such_step", detail)
    if isinstance(error, AnswerRefused):
        status, kind = _REFUSALS[error.kind]
        return ApiError(status, kind, detail)
    if isinstance(error, NotResumable):
        return ApiError(409, "not_resumable", detail)
    if isinstance(error, MachineChanged):
        return ApiError(409, "machine_changed", detail)
    if isinstance(error, RunBusy):
        return ApiError(409, "run_busy", detail)
    if isinstance(error, Diverged):
        return ApiError(409, "diverged", detail)
    if isinstance(error, StoreFailure):
        return ApiError(503, "store_failed", detail)
    if isinstance(error, CodecFailure):
        return ApiError(500, "stored_data_unreadable", detail)
    if isinstance(error, Stopped):
        return ApiError(409, "run_failed", detail)
    if isinstance(error, RunIdRefused):
        return ApiError(422, "credential_run_id", detail)
    raise TypeError(f"not a DurableError: {error!r}")  # unreachable while DurableError is this union


def thread_error_for(error: ThreadError) -> ApiError:
    """The HTTP refusal that reports a thread operation's ``error``, chosen by its type.

    Example:
        >>> busy = thread_error_for(ThreadBusy(thread_id="t1", turn=2, run_id="r7", status="waiting"))
        >>> busy.status, busy.kind, busy.turn["turn"]
        (409, 'thread_busy', 2)
    """
    detail = error.describe()
    if isinstance(error, ThreadNotFound):
        return ApiError(404, "thread_not_found", detail)
    if isinstance(error, ThreadExists):
        return ApiError(409, "thread_exists", detail)
    if isinstance(error, ThreadBusy):
        turn: dict[str, str | int] = {
            "thread_id": error.thread_id,
            "turn": error.turn,
            "run_id": error.run_id,
            "status": error.status,
        }
        return ApiError(409, "thread_busy", detail, turn)
    if isinstance(error, NoSuchTurn):
        return ApiError(404 if not 0 <= error.turn < error.turns else 409, "no_such_turn", detail)
    if isinstance(error, OtherMachine):
        return ApiError(409, "other_machine", detail)
    if isinstance(error, NotConversational):
        return ApiError(422, "not_conversational", detail)
    if isinstance(error, ThreadIdRefused):
        return ApiError(422, "credential_thread_id", detail)
    if isinstance(error, HolderUnknown):
        return ApiError(409, "holder_unknown", detail)
    return error_for(error)


def _json(status: int, kind: str, detail: str, turn: Mapping[str, str | int] | None = None) -> JSONResponse:
    return JSONResponse(error_body(kind, detail, turn), status_code=status)


def _validation_detail(exc: RequestValidationError) -> str:
    """Each problem as ``where: what`` (the location and pydantic's message, never the input value)."""
    parts = []
    for problem in exc.errors():
        where = ".".join(str(part) for part in problem.get("loc", ()))
        parts.append(f"{where}: {problem.get('msg', 'invalid')}")
    return "; ".join(parts) or "the request is malformed"


def install_error_handlers(app: FastAPI) -> None:
    """Make every refusal and failure of ``app`` an :func:`error_body` JSON response."""

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return _json(exc.status, exc.kind, exc.detail, exc.turn)

    async def invalid(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return _json(422, "invalid_request", _validation_detail(exc))

    async def http(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            error_body(kind, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
        )

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        _log.error("%s %s failed: %s", request.method, request.url.path, redact_credentials(repr(exc)))
        return _json(500, "internal_error", "the server failed to answer this request (see its log)")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http)
    app.add_exception_handler(Exception, unexpected)
