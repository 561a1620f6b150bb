"""Routes that change runs: start, fork, resume, recover, and answering a waiting effect.

Each is a POST with a JSON body. A run started, forked or resumed here runs in the server's
process (in a worker thread, so other requests go on) until it finishes, waits for an answer
or fails; the response is its record then. A run's failure is not a refused request: the
response is the stored run, status ``failed`` and its ``reason``. A request that does not fit
(an unknown machine or field, a value of the wrong type, a step the run never reached) is a
4xx that names the problem and stores nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Path, Response
from returns.result import Failure, Result

from agentsm_fn.durable.errors import DurableError, Stopped
from agentsm_fn.durable.operations.answers import answer_for, pending, waiting_effect
from agentsm_fn.durable.operations.forks import fork
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.operations.waiting_below import answer_below
from agentsm_fn.durable.running.fields import FieldProblem, changed_fields, memory_from_json
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.server.context import ServerContext, memory_type
from agentsm_fn.server.errors import ApiError, error_for
from agentsm_fn.server.models import (
    AnswerRequest,
    ErrorDetail,
    ForkRequest,
    PendingItem,
    RecoveredRun,
    RecoverRequest,
    ResumeRequest,
    RunSummary,
    StartRequest,
)
from agentsm_fn.server.runs import pending_item, unwrapped
from agentsm_fn.server.values import record_json
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["action_routes"]

Ran = Result[StoredRun[Any, Any], DurableError]


def _in_background(go: Callable[[], object]) -> None:
    """Run ``go`` (a resume) on a thread of its own; the run is stored as it goes, streamed by ``/events``."""
    threading.Thread(target=go, name="agentsm-resume", daemon=True).start()


def _invalid(problem: FieldProblem) -> ApiError:
    where = f"memory.{problem.field}: " if problem.field else "memory: "
    return ApiError(422, "invalid_memory", where + problem.detail)


def action_routes(ctx: ServerContext) -> APIRouter:
    """The ``POST`` routes that start, fork, resume, recover and answer runs in ``ctx.store``."""
    routes = APIRouter(tags=["actions"])

    def settled(ran: Ran) -> RunSummary:
        """The stored run's record after a run went as far as it could (a machine's failure included)."""
        if isinstance(ran, Failure) and not isinstance(ran.failure(), Stopped):
            raise error_for(ran.failure())
        run_id = ran.unwrap().run_id if not isinstance(ran, Failure) else ran.failure().run_id
        return RunSummary.model_validate(record_json(unwrapped(ctx.store.get(run_id))))

    @routes.post("/runs", status_code=201, response_model=RunSummary)
    def start(body: StartRequest) -> RunSummary:
        """Start a run of a served machine from its memory as JSON; it runs until it stops.

        The fields given are filled into the durable program's ``template`` when it has one
        (an agent's tools, prompt and approval settings kept), else into a new memory.
        """
        durable = ctx.durable(body.machine)
        template = durable.template
        kind = memory_type(durable.machine) if template is None else type(template)
        if kind is None:
            detail = f"the memory type of {body.machine} cannot be read from its initial handler"
            raise ApiError(422, "memory_type_unknown", detail)
        made = memory_from_json(kind, body.memory, template)
        if isinstance(made, Failure):
            raise _invalid(made.failure())
        _check_new_id(ctx, body.run_id)
        return settled(durable.start(ctx.store, made.unwrap(), body.run_id))

    @routes.post("/runs/{run_id}/fork", status_code=201, response_model=RunSummary)
    def fork_run(run_id: str, body: ForkRequest) -> RunSummary:
        """A new run from ``run_id`` as it was after ``step`` transitions, with ``set`` fields changed."""
        durable = ctx.durable(unwrapped(ctx.store.get(run_id)).machine)
        found = unwrapped(replay_stored(ctx.store, durable.machine, run_id, body.step))
        checked = changed_fields(found.memory, body.set)  # checked before anything is stored
        if isinstance(checked, Failure):
            raise _invalid(checked.failure())
        _check_new_id(ctx, body.run_id)
        change: Callable[[object], object] = lambda _: checked.unwrap()  # noqa: E731 - the memory checked above
        return settled(fork(ctx.store, durable.machine, run_id, body.step, durable, change, body.run_id))

    def go_on(run_id: str, allow_changed: bool, wait: bool, response: Response) -> RunSummary:
        durable = ctx.durable(unwrapped(ctx.store.get(run_id)).machine)
        if wait:
            return settled(durable.resume(ctx.store, run_id, allow_changed=allow_changed))
        _in_background(lambda: durable.resume(ctx.store, run_id, allow_changed=allow_changed))
        response.status_code = 202
        return RunSummary.model_validate(record_json(unwrapped(ctx.store.get(run_id))))

    @routes.post("/runs/{run_id}/resume", response_model=RunSummary, responses={202: {"model": RunSummary}})
    def resume(run_id: str, body: ResumeRequest, response: Response) -> RunSummary:
        """Run a stored run on in the server's process (``allow_changed``: even if its machine changed).

        With ``wait`` false the answer is a 202 at once and the run goes on in the background.
        """
        return go_on(run_id, body.allow_changed, body.wait, response)

    @routes.post("/recover", response_model=list[RecoveredRun])
    def recover_runs(body: RecoverRequest) -> list[RecoveredRun]:
        """Resume every run of these served machines that no live process runs."""
        durables = [ctx.durable(name) for name in body.machines] or list(ctx.durables.values())
        done = unwrapped(recover(ctx.store, durables))
        recovered = []
        for item in done:
            error = None
            if isinstance(item.result, Failure) and not isinstance(item.result.failure(), Stopped):
                refused = error_for(item.result.failure())
                error = ErrorDetail(kind=refused.kind, detail=redact_credentials(refused.detail))
            status = ctx.store.get(item.run_id).map(lambda r: r.status.value).value_or("unknown")
            recovered.append(
                RecoveredRun(run_id=item.run_id, machine=item.machine, status=status, error=error)
            )
        return recovered

    @routes.get("/pending", response_model=list[PendingItem])
    def waiting() -> list[PendingItem]:
        """Every effect a stored run waits on, oldest run first."""
        return [pending_item(p) for p in unwrapped(pending(ctx.store))]

    @routes.post(
        "/runs/{run_id}/pending/{seq}/answer",
        response_model=RunSummary,
        responses={202: {"model": RunSummary}},
    )
    def answer_effect(
        run_id: str, body: AnswerRequest, response: Response, seq: int = Path(ge=0, le=10**12)
    ) -> RunSummary:
        """Answer the effect ``seq`` the run waits on, once: a second answer is a 409 ``answered_already``.

        With ``run_id`` in the body, the effect is that run's: a child's, down this run's tree (a
        run not under this one is a 409 ``not_below``); ``resume`` then resumes this run, which
        runs the child on here and goes on.
        """
        below = body.run_id or run_id
        waiting = unwrapped(waiting_effect(ctx.store, below, seq))  # that run's entry: no other run is read
        effect = None if waiting is None else waiting.effect
        arguments = body.arguments if body.decision == "modify" else None
        if body.decision == "modify" and arguments is None:
            raise ApiError(
                422, "invalid_request", "body.arguments: a modify decision needs the new arguments"
            )
        outcome = answer_for(effect, body.decision != "reject", body.reason, arguments)
        if outcome is None:
            kind = waiting.summary if waiting else "that effect"
            raise ApiError(422, "wrong_answer_type", f"{kind} accepts no {body.decision} decision")
        unwrapped(answer_below(ctx.store, run_id, below, seq, outcome))
        if body.resume:
            return go_on(run_id, False, body.wait, response)
        return RunSummary.model_validate(record_json(unwrapped(ctx.store.get(run_id))))

    return routes


def _check_new_id(ctx: ServerContext, run_id: str | None) -> None:
    """Refuse a run id given for a new run that is taken (409), before the run is made.

    One that looks like a credential is refused by the ``Durable`` itself (a typed
    ``RunIdRefused``: 422 ``credential_run_id``), for every door that makes a run.
    """
    if run_id is None:
        return
    if not isinstance(ctx.store.get(run_id), Failure):
        raise ApiError(409, "run_exists", f"a run {run_id} is stored already")
