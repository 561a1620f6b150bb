"""The moves every handler makes: take a transition (recording the FSM history), halt, finish.

FINALIZE and HALT are terminal, so the run stops on arrival and they run no
handler. Their work happens on the way in:

* :func:`halt` records the error cause, clears pending tool calls (the seed's
  "cleanup state") and logs the failure before the event that leads to HALT;
* :func:`finish` stores the final result and, when the finalizer is asked to
  summarize, first performs one LLM call without tools (no retries: a failed
  summary keeps the answer and is written to the audit log).
"""

from __future__ import annotations

from typing import Literal, TypeAlias, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.output.result_type import ResultType
from agentsm_fn.agents.output.values import RejectedOutput
from agentsm_fn.agents.plan_execute.graph import TABLE, Event, State
from agentsm_fn.agents.plan_execute.memory import Awaiting, PlanExecuteMemory
from agentsm_fn.agents.plan_execute.prompts import summary_request
from agentsm_fn.agents.plan_execute.values import AuditEntry, FinalResult, FsmTransition, HaltError
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome, LlmReply

__all__ = ["Reading", "advance", "audit", "finalized", "finish", "halt", "summarized"]

EventT = TypeVar("EventT", bound=Event)

Mem = PlanExecuteMemory

Reading: TypeAlias = ResultType[object] | None
"""How a handler reads a final answer: the agent's result type (its class and output validators), or None
(the memory's ``output`` schema alone, or text)."""


def audit(mem: Mem, state: State, kind: str, message: str) -> Mem:
    """``mem`` with one more audit-log entry.

    Example:
        >>> len(audit(PlanExecuteMemory(input="x"), State.PLAN, "plan", "ok").audit_log)
        1
    """
    entry = AuditEntry(iteration=mem.iteration, state=state, kind=kind, message=message)
    return attrs.evolve(mem, audit_log=mem.audit_log.append(entry))


def advance(event: EventT, source: State, mem: Mem, reason: str) -> Result[tuple[EventT, Mem], Fault]:
    """Emit ``event`` from ``source``, recording ``{from, to, reason, iteration}`` in the history.

    Example:
        >>> ev, mem = advance(Event.NORMALIZED, State.INTAKE, PlanExecuteMemory(input="x"), "ok").unwrap()
        >>> mem.history[0].as_dict()
        {'from': 0, 'to': 1, 'reason': 'ok', 'iteration': 0}
    """
    entry = FsmTransition(
        source=source, target=TABLE[(source, event)], event=event, reason=reason, iteration=mem.iteration
    )
    return emit(event, attrs.evolve(mem, history=mem.history.append(entry), awaiting=Awaiting.NOTHING))


def halt(event: EventT, mem: Mem, error: HaltError) -> Result[tuple[EventT, Mem], Fault]:
    """Emit the event that leads to HALT, recording ``error`` and cleaning up.

    Example:
        >>> from agentsm_fn.agents.plan_execute.values import HaltCause
        >>> err = HaltError(cause=HaltCause.INVALID_PLAN, state=State.PLAN, message="not JSON")
        >>> _, mem = halt(Event.INVALID_PLAN, PlanExecuteMemory(input="x"), err).unwrap()
        >>> mem.error.cause, mem.audit_log[-1].kind, mem.history[-1].target
        (<HaltCause.INVALID_PLAN: 'invalid_plan'>, 'halt', <State.HALT: 7>)
    """
    logged = audit(mem, error.state, "halt", error.describe())
    cleaned = attrs.evolve(logged, error=error, pending_tool_calls=())
    return advance(event, error.state, cleaned, f"Halted: {error.describe()}")


def finish(
    event: EventT, source: State, mem: Mem, content: str, stopped_by: str, result: Reading = None
) -> Result[tuple[EventT | Literal[Event.OUTPUT_INVALID], Mem] | Perform[LlmOutcome, Mem], Fault]:
    """Emit the event that leads to FINALIZE with the final result (after a summary call if asked).

    ``result`` (the agent's result type, when it has one) checks the answer (:func:`finalized`).

    Example:
        >>> _, mem = finish(Event.NO_TOOL_CALLS, State.EXECUTE, PlanExecuteMemory(input="x"),
        ...                 "Use prawn.", "no_tool_calls").unwrap()
        >>> mem.final_result.answer, mem.final_result.done
        ('Use prawn.', True)
    """
    done = FinalResult(content=content, iterations=mem.iteration, stopped_by=stopped_by)
    ready = attrs.evolve(mem, final_result=done, pending_tool_calls=())
    if ready.config.finalizer.summarize:
        waiting = attrs.evolve(ready, awaiting=Awaiting.SUMMARY)
        return perform(LlmCall(summary_request(waiting), purpose="finalize"), waiting)
    logged = audit(ready, source, "finalize", f"final result ({stopped_by})")
    return finalized(event, source, logged, f"Finalized ({stopped_by})", result)


def finalized(
    event: EventT, source: State, mem: Mem, reason: str, result: Reading = None
) -> Result[tuple[EventT | Literal[Event.OUTPUT_INVALID], Mem], Fault]:
    """Emit ``event`` to FINALIZE, unless the answer is not a valid result: OUTPUT_INVALID.

    With a typed result (``mem.output``) the answer must be a JSON object its schema accepts,
    read by ``result`` (the agent's result type: its class, then its output validators), or
    by the schema alone without one. A valid value is kept as ``mem.result``; an invalid
    answer is kept with every problem in ``mem.rejected_outputs`` (CORRECTING sends it back).
    Text with output validators (``result`` without a schema) is checked by them alike.

    Example:
        >>> from agentsm_fn.agents.output.values import OutputSpec
        >>> spec = OutputSpec(name="Ack", schema={"type": "object", "required": ["ok"]})
        >>> done = PlanExecuteMemory(input="x", output=spec, final_result=FinalResult(
        ...     content='{"ok": true}', iterations=1, stopped_by="no_tool_calls"))
        >>> event, after = finalized(Event.NO_TOOL_CALLS, State.EXECUTE, done, "ok").unwrap()
        >>> event.name, dict(after.result)
        ('NO_TOOL_CALLS', {'ok': True})
        >>> bad = attrs.evolve(done, final_result=attrs.evolve(done.final_result, content="{}"))
        >>> event, after = finalized(Event.NO_TOOL_CALLS, State.EXECUTE, bad, "ok").unwrap()
        >>> event.name, after.rejected_outputs[0].describe()
        ('OUTPUT_INVALID', "$: 'ok' is a required property")
    """
    spec, done = mem.output, mem.final_result
    if done is None or (spec is None and (result is None or not result.validators)):
        return advance(event, source, mem, reason)
    reading = result if result is not None else ResultType[object](kind="schema", spec=spec)
    match reading.check(done.answer):
        case Success(value):
            return advance(event, source, attrs.evolve(mem, result=reading.stored(value)), reason)
        case Failure(problems):
            rejected = RejectedOutput(step=mem.iteration, reply=done.answer, problems=problems)
    invalid = attrs.evolve(mem, rejected_outputs=(*mem.rejected_outputs, rejected))
    logged = audit(invalid, source, "output_invalid", rejected.describe()[:300])
    name = reading.name if spec is None else spec.name
    return advance(Event.OUTPUT_INVALID, source, logged, f"Not a valid {name}: {rejected.describe()[:200]}")


def summarized(
    event: EventT, source: State, mem: Mem, outcome: LlmOutcome, result: Reading = None
) -> Result[tuple[EventT | Literal[Event.OUTPUT_INVALID], Mem], Fault]:
    """Finish after the summary call: keep its text, or keep the answer if it failed.

    Example:
        >>> mem = PlanExecuteMemory(input="x", final_result=FinalResult(content="a", iterations=1,
        ...                         stopped_by="no_tool_calls"))
        >>> _, done = summarized(Event.NO_TOOL_CALLS, State.EXECUTE, mem, LlmReply(content="short")).unwrap()
        >>> done.final_result.answer, done.final_result.content
        ('short', 'a')
    """
    draft = mem.final_result or FinalResult(content="", iterations=mem.iteration, stopped_by="unknown")
    match outcome:
        case LlmReply():
            final = attrs.evolve(draft, summary=outcome.content)
            logged = audit(
                attrs.evolve(mem, usage=mem.usage + outcome.usage, final_result=final),
                source,
                "finalize",
                f"final result with summary ({draft.stopped_by})",
            )
        case LlmFailure():
            logged = audit(
                mem, source, "finalize", f"summary failed, answer kept (no retries): {outcome.describe()}"
            )
    return finalized(event, source, logged, f"Finalized ({draft.stopped_by})", result)
