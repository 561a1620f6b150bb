"""``/threads``: stored threads a page at a time, one thread, its turns, its conversation, and deleting one.

A thread is an ordered chain of runs, one per turn (docs/threads.md): each turn's run is an
ordinary run of the run API (``/runs/{run_id}``). Everything here reads but ``DELETE``, which
deletes the thread, its turns and the runs no other thread names, in one transaction. Sending a
message and forking are :mod:`agentsm_fn.server.thread_actions`. Every string is redacted.
"""

from __future__ import annotations

from typing import TypeVar

from fastapi import APIRouter, Query
from returns.result import Failure, Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.operations.threads import conversation_after
from agentsm_fn.durable.stores.protocol.threads import ThreadQuery, ThreadRecord, ThreadStore
from agentsm_fn.durable.thread_errors import ThreadError
from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import ApiError, error_for, thread_error_for
from agentsm_fn.server.runs import pair_cursor, pair_of
from agentsm_fn.server.thread_models import DeletedThread, ThreadMessages, ThreadPage, ThreadSummary, TurnPage
from agentsm_fn.server.thread_view import messages_json, thread_json, turn_json

__all__ = ["kept_threads", "thread_of", "thread_routes", "threaded"]

T = TypeVar("T")


def threaded(result: Result[T, ThreadError]) -> T:
    """The value of ``result``, or its error raised as the :class:`ApiError` that reports it."""
    if isinstance(result, Failure):
        raise thread_error_for(result.failure())
    return result.unwrap()


def kept_threads(ctx: ServerContext) -> ThreadStore:
    """The server's store as a thread store (both stores are), or a 503 saying it keeps none."""
    store = ctx.store
    if isinstance(store, ThreadStore):
        return store
    raise error_for(StoreFailure(operation="threads", detail=f"{type(store).__name__} keeps no threads"))


def thread_of(ctx: ServerContext, thread_id: str) -> ThreadRecord:
    """The stored thread ``thread_id``, or a 404 ``thread_not_found``."""
    return threaded(kept_threads(ctx).thread(thread_id))


def _after(cursor: str) -> tuple[float, str]:
    pair = pair_of(cursor)
    if pair is None:
        raise ApiError(
            422, "invalid_cursor", "cursor is not one this server gave (take it from a page's next)"
        )
    return pair


def thread_routes(ctx: ServerContext) -> APIRouter:
    """The ``/threads`` routes that read and delete threads in ``ctx.store``."""
    routes = APIRouter(tags=["threads"])

    @routes.get("/threads", response_model=ThreadPage)
    def threads(
        machine: str | None = Query(default=None, max_length=500),
        parent: str | None = Query(default=None, max_length=500, description="forks of this thread only"),
        limit: int = Query(default=50, ge=1, le=500),
        cursor: str | None = Query(default=None, max_length=1000),
    ) -> ThreadPage:
        """Stored threads, newest first, a page at a time (follow ``next`` as ``cursor``)."""
        query = ThreadQuery(
            machine=machine,
            parent=parent,
            limit=limit + 1,  # one more than asked: there is a next page if it comes back
            after=None if cursor is None else _after(cursor),
        )
        found = threaded(kept_threads(ctx).threads(query))
        page = found[:limit]
        following = pair_cursor(page[-1].created, page[-1].thread_id) if len(found) > limit else None
        return ThreadPage(threads=[thread_json(t) for t in page], next=following)

    @routes.get("/threads/{thread_id}", response_model=ThreadSummary)
    def thread(thread_id: str) -> ThreadSummary:
        """One stored thread, with its last turn and where it stands."""
        return thread_json(thread_of(ctx, thread_id))

    @routes.get("/threads/{thread_id}/turns", response_model=TurnPage)
    def turns(
        thread_id: str,
        start: int = Query(default=0, ge=0, le=10**9, description="the first turn's number"),
        limit: int = Query(default=100, ge=1, le=1000),
    ) -> TurnPage:
        """The thread's turns in order from turn ``start``, with their runs (follow ``next`` as ``start``)."""
        thread_of(ctx, thread_id)
        found = threaded(kept_threads(ctx).turns(thread_id, start, limit + 1))
        page = found[:limit]
        following = page[-1].turn + 1 if len(found) > limit else None
        return TurnPage(turns=[turn_json(turn) for turn in page], next=following)

    @routes.get("/threads/{thread_id}/messages", response_model=ThreadMessages)
    def messages(
        thread_id: str,
        turn: int | None = Query(
            default=None, ge=0, le=10**9, description="after this turn (default: its last ended turn)"
        ),
    ) -> ThreadMessages:
        """The thread's conversation after a turn: what the next turn's LLM requests carry of it."""
        durable = ctx.durable(thread_of(ctx, thread_id).machine)
        return messages_json(thread_id, threaded(conversation_after(durable, ctx.store, thread_id, turn)))

    @routes.delete("/threads/{thread_id}", response_model=DeletedThread)
    def delete(thread_id: str) -> DeletedThread:
        """Delete the thread, its turns and the runs no other thread names (a fork shares earlier runs)."""
        deleted = threaded(kept_threads(ctx).delete_thread(thread_id))
        return DeletedThread(thread_id=thread_id, runs=list(deleted))

    return routes
