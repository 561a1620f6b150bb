"""AG-UI over threads: ``threadId`` names a stored thread, and each request that says something adds a turn.

An agent whose ``Durable`` declares how a turn starts (``Durable.turns``: the built-in agents do)
is served over threads. The server takes the conversation from the store, not from the client:
the request's user messages are compared with the stored turns
(:mod:`agentsm_fn.server.agui.placement`):

- a request that adds one message after them runs the thread's next turn (``Durable.achat``),
  its run stored under the request's ``runId``;
- a request whose last user message differs from the stored one of an earlier turn (the user
  edited it) forks the thread at that turn (``fork_thread``) and runs the edited turn there;
  from then on ``threadId`` names the fork: a thread's AG-UI forks are named ``THREAD~…`` and
  the newest one of the newest one ... is where the conversation goes on (the original stays
  stored, listed as their parent);
- every run starts with ``MESSAGES_SNAPSHOT``: the thread's conversation so far and the
  message the run answers, so the client shows what the store holds.

Everything is checked before the stream starts: a thread whose last turn has not ended (it runs
or waits for an approval) refuses a new message with 409 ``thread_busy`` naming that turn (the
answer to the approval is a ``resume``), and a request that says nothing new is a 422.
"""

from __future__ import annotations

import uuid
from typing import Any

import attrs
from fastapi.responses import JSONResponse
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.operations.threads import conversation_after
from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadQuery, ThreadStore, TurnRecord
from agentsm_fn.durable.thread_errors import NoSuchTurn, ThreadBusy, ThreadError, ThreadNotFound
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.messages import UserMessage
from agentsm_fn.server.agui.agent import AguiAgent
from agentsm_fn.server.agui.placement import Continue, Edit, place, snapshot_messages
from agentsm_fn.server.agui.request import AguiRequest
from agentsm_fn.server.agui.state import public_state
from agentsm_fn.server.agui.stream import StartingPoint, ThreadTurn
from agentsm_fn.server.errors import error_body, thread_error_for

__all__ = ["fork_name", "head", "open_turn", "resumed_turn"]

_PAGE = 50


def fork_name(thread_id: str) -> str:
    """A new id for an AG-UI fork of the conversation ``thread_id`` names.

    Example:
        >>> fork_name("chat-1").startswith("chat-1~"), len(fork_name("x" * 128)) <= 128
        (True, True)
    """
    return f"{thread_id[:100]}~{uuid.uuid4().hex[:12]}"


def _newest_fork(store: ThreadStore, parent: str, prefix: str) -> Result[str | None, StoreFailure]:
    after: tuple[float, str] | None = None
    while True:
        page = store.threads(ThreadQuery(parent=parent, limit=_PAGE, after=after))
        if isinstance(page, Failure):
            return page
        rows = page.unwrap()
        found = next((row.thread_id for row in rows if row.thread_id.startswith(prefix)), None)
        if found is not None or len(rows) < _PAGE:
            return Success(found)
        after = (rows[-1].created, rows[-1].thread_id)


def head(store: ThreadStore, thread_id: str) -> Result[str, StoreFailure]:
    """The stored thread the AG-UI conversation ``thread_id`` goes on in: it, or its newest AG-UI fork's head.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> head(store, "chat-1").unwrap()
        'chat-1'
        >>> store.close()
    """
    current, prefix = thread_id, f"{thread_id[:100]}~"
    while True:
        newest = _newest_fork(store, current, prefix)
        if isinstance(newest, Failure):
            return newest
        found = newest.unwrap()
        if found is None:
            return Success(current)
        current = found


def _refused(error: ThreadError) -> JSONResponse:
    refusal = thread_error_for(error)
    return JSONResponse(error_body(refusal.kind, refusal.detail, refusal.turn), status_code=refusal.status)


def _bad(problem: FieldProblem) -> JSONResponse:
    return JSONResponse(error_body("bad_request", problem.describe()), status_code=422)


def _stored(store: RunStore) -> Result[ThreadStore, ThreadError]:
    if isinstance(store, ThreadStore):
        return Success(store)
    return Failure(StoreFailure(operation="threads", detail=f"{type(store).__name__} keeps no threads"))


def _thread(store: ThreadStore, thread_id: str) -> Result[tuple[str, tuple[TurnRecord, ...]], ThreadError]:
    """The stored thread the conversation goes on in, and its turns (none for a new one)."""
    found = head(store, thread_id)
    if isinstance(found, Failure):
        return found
    current = found.unwrap()
    record = store.thread(current)
    if isinstance(record, Failure):
        return Success((current, ())) if isinstance(record.failure(), ThreadNotFound) else record
    turns = store.turns(current)
    return turns.map(lambda rows: (current, rows))


def _conversation(
    agent: AguiAgent[Any, Any, Any], store: RunStore, thread_id: str, after: int
) -> Result[Conversation, ThreadError]:
    """The thread after turn ``after`` (-1: before the first)."""
    if after < 0:
        return Success(Conversation())
    return conversation_after(agent.durable, store, thread_id, after)


def open_turn(
    agent: AguiAgent[Any, Any, Any], store: RunStore, request: AguiRequest
) -> StartingPoint | JSONResponse:
    """Where a request to a conversational agent starts: its thread's next turn, or a fork (see above)."""
    turns = agent.durable.turns
    assert turns is not None  # the endpoint sends only conversational agents here
    if not isinstance(store.get(request.run_id), Failure):
        return JSONResponse(
            error_body("run_exists", f"runId {request.run_id} names a stored run already"), status_code=409
        )
    if refused_run_id(request.thread_id) is not None:
        return _bad(FieldProblem(field="threadId", detail="looks like a credential: choose another id"))
    kept = _stored(store).bind(lambda threads: _thread(threads, request.thread_id))
    if isinstance(kept, Failure):
        return _refused(kept.failure())
    thread_id, stored = kept.unwrap()
    placed = place(list(request.user_messages), [turn.message for turn in stored])
    if isinstance(placed, Failure):
        return _bad(placed.failure())
    where = placed.unwrap()
    if isinstance(where, Continue) and stored and not stored[-1].status.ended:
        last = stored[-1]
        return _refused(
            ThreadBusy(thread_id=thread_id, turn=last.turn, run_id=last.run_id, status=last.status.value)
        )
    if isinstance(where, Edit) and where.turn > 0 and not stored[where.turn - 1].status.ended:
        why = f"turn {where.turn - 1} has not ended, so the thread before turn {where.turn} is not known yet"
        return _refused(NoSuchTurn(thread_id=thread_id, turn=where.turn, turns=len(stored), why=why))
    before = _conversation(agent, store, thread_id, where.turn - 1)
    if isinstance(before, Failure):
        return _refused(before.failure())
    conversation = before.unwrap()
    start = turns.start(conversation, where.message)
    fork = fork_name(request.thread_id) if isinstance(where, Edit) else ""
    shown = conversation.then([UserMessage(where.message)])
    return StartingPoint(
        stored=request.run_id,
        state=agent.durable.machine.initial.name,
        shown=public_state(start),
        turn=ThreadTurn(thread_id=thread_id, turn=where.turn, message=where.message, fork=fork),
        messages=tuple(snapshot_messages(request.run_id, shown)),
    )


def resumed_turn(
    agent: AguiAgent[Any, Any, Any],
    store: RunStore,
    request: AguiRequest,
    opening: StartingPoint,
    memory: object,
) -> StartingPoint:
    """A resumed run of a conversational agent, with its thread's conversation so far (if it is a turn)."""
    turns = agent.durable.turns
    if turns is None or not isinstance(store, ThreadStore):
        return opening
    owners = store.turns_of_run(opening.stored).value_or(())
    if not owners:
        return opening
    turn = owners[0]
    mark = ThreadTurn(thread_id=turn.thread_id, turn=turn.turn, message=turn.message, resumed=True)
    shown = snapshot_messages(request.run_id, turns.so_far(memory))
    return attrs.evolve(opening, turn=mark, messages=tuple(shown))
