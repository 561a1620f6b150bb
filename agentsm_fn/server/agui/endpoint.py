"""``POST /agui/{name}``: the AG-UI endpoint of each served agent, and how its ids map to stored runs.

The body is the protocol's ``RunAgentInput``; the answer is its event stream (SSE). Ids:

- ``threadId`` is the conversation. For an agent whose ``Durable`` declares how a turn starts
  (the built-in agents) it names a stored thread, and the server takes the conversation from
  the store: a request adds a turn, or forks the thread where the user edited a message
  (:mod:`agentsm_fn.server.agui.threads`). For another machine it is echoed on the run's events.
- A request without ``resume`` starts a new stored run (a thread's turn) whose id is the request's ``runId``
  (so the run API's ``/runs/{runId}`` shows it). A ``runId`` that names a stored run already
  is refused (409): a retry with the same id never runs the agent twice.
- A run that stops to wait ends the AG-UI run with the interrupt ``RUN#SEQ``. The request
  that answers it (a new ``runId``, ``resume: [{interruptId: "RUN#SEQ", ...}]``) commits
  the answer with the store's exactly-once answer, then resumes the stored run ``RUN``
  and streams what it does: ``RUN_STARTED`` of the new ``runId``, metadata naming ``RUN``.
  A run that waits on its children (an agent tool, a handoff) ends with its waiting child's
  interrupt (``RUN.c1#SEQ``: an approval inside the child); the answer is committed to the
  child once, then the top run is resumed: its child runs on, then it, in this AG-UI run.

Everything is checked before the stream starts, and a refused request writes nothing:
a malformed body or a problem in it is a 422 that names the field, an unknown agent or
stored run a 404, an interrupt answered already (or never asked) a 409.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.operations.answers import waiting_effect
from agentsm_fn.durable.operations.waiting_below import above, answer_below
from agentsm_fn.durable.running.chat import turn_program
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.durable.running.program import DurableProgram
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadStore
from agentsm_fn.server.agui.agent import AguiAgent, agui_for
from agentsm_fn.server.agui.interrupts import answer_from, waiting_entry
from agentsm_fn.server.agui.request import AguiRequest, read_request
from agentsm_fn.server.agui.state import public_state
from agentsm_fn.server.agui.stream import StartingPoint, run_events
from agentsm_fn.server.agui.threads import open_turn, resumed_turn
from agentsm_fn.server.app import ROUTERS, RouterFactory
from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import error_body, error_for
from agentsm_fn.server.streaming import streamed_response

__all__ = ["agui_router", "agui_routes", "with_agui"]


def _refused(status: int, kind: str, detail: str) -> JSONResponse:
    return JSONResponse(error_body(kind, detail), status_code=status)


def _failed(error: DurableError) -> JSONResponse:
    refusal = error_for(error)
    return _refused(refusal.status, refusal.kind, refusal.detail)


def _bad(problem: FieldProblem) -> JSONResponse:
    return _refused(422, "bad_request", problem.describe())


def _start(
    agent: AguiAgent[Any, Any, Any], store: RunStore, request: AguiRequest
) -> StartingPoint | JSONResponse:
    if not isinstance(store.get(request.run_id), Failure):
        return _refused(409, "run_exists", f"runId {request.run_id} names a stored run already")
    memory = agent.memory(request)
    if isinstance(memory, Failure):
        return _bad(memory.failure())
    first = memory.unwrap()
    machine = agent.durable.machine
    return StartingPoint(
        stored=request.run_id, state=machine.initial.name, shown=public_state(first), memory=first
    )


def _resume(
    agent: AguiAgent[Any, Any, Any], store: RunStore, request: AguiRequest
) -> StartingPoint | JSONResponse:
    entries = request.resume
    named = [waiting_entry(entry.interrupt_id) for entry in entries]
    for index, found in enumerate(named):
        if found is None:
            return _bad(
                FieldProblem(field=f"resume[{index}].interruptId", detail="names no interrupt of ours")
            )
    runs = {found[0] for found in named if found is not None}
    if len(runs) > 1 or len(entries) > 1:
        return _bad(
            FieldProblem(field="resume", detail="a run waits for one answer at a time: answer one interrupt")
        )
    (run_id, seq), entry = named[0] or ("", 0), entries[0]
    served = _served(store, run_id)  # the run, or the top of the runs it is a child of
    if isinstance(served, Failure):
        return _failed(served.failure())
    top, machine = served.unwrap()
    held = agent.durable if machine == agent.name else _holder(store, agent, top)
    if held is None or machine != held.name:
        return _bad(
            FieldProblem(field="resume[0].interruptId", detail=f"run {run_id} is not a run of {agent.name}")
        )
    looked = waiting_effect(store, run_id, seq)  # this run's entry: no other run is read
    if isinstance(looked, Failure):
        return _failed(looked.failure())
    waiting = looked.unwrap()
    if waiting is None:
        return _refused(
            409,
            "not_waiting",
            f"interrupt {entry.interrupt_id} is not open: answered already, or never asked",
        )
    outcome = answer_from(entry, waiting.effect, "resume[0]")
    if isinstance(outcome, Failure):
        return _bad(outcome.failure())
    before = replay_stored(store, held.machine, top)
    if isinstance(before, Failure):
        return _failed(before.failure())
    answered = answer_below(store, top, run_id, seq, outcome.unwrap())  # a child's: through its top
    if isinstance(answered, Failure):
        return _failed(answered.failure())
    snapshot = before.unwrap()
    own = waiting.effect if isinstance(waiting.effect, AskHuman) and top == run_id else None
    asked = frozenset({own.request.tool_call.id} if own is not None else ())
    opening = StartingPoint(
        stored=top, state=snapshot.state.name, shown=public_state(snapshot.memory), announced=asked
    )
    return resumed_turn(agent, store, request, opening, snapshot.memory)


def _holder(
    store: RunStore, agent: AguiAgent[Any, Any, Any], run_id: str
) -> DurableProgram[Any, Any, Any] | None:
    """The agent a turn of one of ``agent``'s threads ran on (it held the thread after a handoff), or None."""
    if not isinstance(store, ThreadStore):
        return None
    turns = store.turns_of_run(run_id).value_or(())
    if not any(
        store.thread(turn.thread_id).map(lambda t: t.machine == agent.name).value_or(False) for turn in turns
    ):
        return None
    return turn_program(store, agent.durable, run_id).value_or(None)


def _served(store: RunStore, run_id: str) -> Result[tuple[str, str], DurableError]:
    """The run an interrupt of ``run_id`` resumes (it, or the top run it is a child of) and its machine."""
    return (
        above(store, run_id)
        .map(lambda runs: runs[0] if runs else run_id)
        .bind(lambda top: store.get(top).map(lambda record: (top, record.machine)))
    )


def agui_routes(store: RunStore, agents: Sequence[AguiAgent[Any, Any, Any]]) -> APIRouter:
    """A router with ``POST /agui/{name}`` for each of ``agents``, running them on ``store``.

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> [route.path for route in agui_routes(store, []).routes]
        ['/agui/{name}']
        >>> store.close()
    """
    served = {agent.name: agent for agent in agents}
    router = APIRouter(tags=["AG-UI"])
    media_type = EventEncoder().get_content_type()

    @router.post("/agui/{name}", response_class=StreamingResponse)
    async def run_agent(name: str, body: RunAgentInput) -> Response:
        """Run (or resume) the agent ``name`` and stream the AG-UI events of the run."""
        agent = served.get(name)
        if agent is None:
            return _refused(
                404, "unknown_agent", f"no AG-UI agent named {name} (served: {', '.join(served)})"
            )
        request = read_request(body)
        if isinstance(request, Failure):
            return _bad(request.failure())
        given = request.unwrap()
        conversing = agent.durable.turns is not None
        opening = (_resume if given.resume else open_turn if conversing else _start)(agent, store, given)
        if isinstance(opening, JSONResponse):
            return opening
        return streamed_response(run_events(agent, store, given, opening), media_type)

    return router


def agui_router(agents: Sequence[AguiAgent[Any, Any, Any]]) -> Callable[[ServerContext], APIRouter]:
    """``agents``' AG-UI routes as a router factory of ``create_app`` (``routers=(*ROUTERS, it)``).

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> from agentsm_fn.server import ROUTERS, create_app
        >>> app = create_app(SqliteStore.open(":memory:").unwrap(), [], routers=(*ROUTERS, agui_router([])))
        >>> "/agui/{name}" in app.openapi()["paths"]
        True
    """
    return lambda ctx: agui_routes(ctx.store, agents)


def with_agui(durables: Sequence[Durable[Any, Any, Any]]) -> Result[tuple[RouterFactory, ...], str]:
    """The app's routers (:data:`~agentsm_fn.server.ROUTERS`) with AG-UI's for each of ``durables``.

    Each must be one AG-UI can drive (:func:`~agentsm_fn.server.agui.agui_for`); else why not,
    naming those it cannot. ``agentsm-runs serve --agui`` serves with these.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> with_agui([Durable(name="app:BARE", machine=REACT_MACHINE)]).failure()[:36]
        'AG-UI cannot drive app:BARE: AG-UI d'
    """
    made = [(durable.name, agui_for(durable)) for durable in durables]
    refused = [(name, found.failure()) for name, found in made if isinstance(found, Failure)]
    if refused:
        return Failure(f"AG-UI cannot drive {', '.join(name for name, _ in refused)}: {refused[0][1]}")
    return Success((*ROUTERS, agui_router([found.unwrap() for _, found in made])))
