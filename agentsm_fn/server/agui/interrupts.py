"""A waiting effect as an AG-UI interrupt, and a resume entry as the answer the effect accepts.

A stored run that waits for an answer (a tool that needs approval: the ReAct agent's
``AskHuman``; or any effect whose performer suspends) ends the AG-UI run with
``RUN_FINISHED`` whose outcome is ``interrupt``. Its one :class:`Interrupt` has the id
``RUN#SEQ`` (the stored run and its waiting journal entry), so the request that answers it
names the run it resumes. ``responseSchema`` says what the answer looks like::

    {"approved": true}                              approve (Approved(), or True)
    {"approved": true, "arguments": {...}}          approve with changed arguments (Modified)
    {"approved": false, "reason": "..."}            reject (Rejected(reason), or False)
    status "cancelled"                              reject: the person walked away

The payload is checked against that schema; an answer the waiting effect does not accept
is a problem too, and nothing is written for either.
"""

from __future__ import annotations

import json

import jsonschema
from ag_ui.core import Interrupt, ResumeEntry
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.outcomes import Approved, Modified, Rejected
from agentsm_fn.core.effects import Effect
from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.llm.json import thaw
from agentsm_fn.shell.credentials import redact_credentials

__all__ = [
    "ANSWER_SCHEMA",
    "APPROVAL_SCHEMA",
    "answer_from",
    "interrupt_for",
    "interrupt_id",
    "waiting_entry",
]

ANSWER_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
"""What a resume entry's payload holds."""

APPROVAL_SCHEMA: dict[str, object] = {
    **ANSWER_SCHEMA,
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string"},
        "arguments": {"type": "object"},
    },
}
"""What it holds for a tool approval: the call's changed ``arguments`` too."""


def interrupt_id(run_id: str, seq: int) -> str:
    """The id of the interrupt for effect ``seq`` of stored run ``run_id``.

    Example:
        >>> interrupt_id("r1", 3)
        'r1#3'
    """
    return f"{run_id}#{seq}"


def waiting_entry(interrupt: str) -> tuple[str, int] | None:
    """The stored run and journal entry an interrupt id names, or None if it names none.

    Example:
        >>> waiting_entry("r1#3"), waiting_entry("r1"), waiting_entry("#x")
        (('r1', 3), None, None)
    """
    run_id, mark, seq = interrupt.rpartition("#")
    if not mark or not run_id or not seq.isdigit() or len(seq) > 18:
        return None
    return run_id, int(seq)


def interrupt_for(run_id: str, seq: int, effect: Effect[object] | None, summary: str) -> Interrupt:
    """The interrupt that asks for the answer to effect ``seq`` of ``run_id``.

    Example:
        >>> from agentsm_fn.agents.react import HumanApprovalRequest
        >>> from agentsm_fn.llm import ToolCall
        >>> ask = AskHuman(HumanApprovalRequest(step=1, tool_call=ToolCall("c1", "pay", {"eur": 5}),
        ...                                     reason="needs approval"))
        >>> found = interrupt_for("r1", 2, ask, ask.summary())
        >>> found.id, found.reason, found.tool_call_id, found.message
        ('r1#2', 'tool_approval', 'c1', 'pay({"eur": 5}): needs approval')
    """
    if isinstance(effect, AskHuman):
        call = effect.request.tool_call
        message = f"{call.name}({json.dumps(thaw(call.arguments))}): {effect.request.reason}"
        return Interrupt(
            id=interrupt_id(run_id, seq),
            reason="tool_approval",
            message=redact_credentials(message),
            tool_call_id=call.id,
            response_schema=APPROVAL_SCHEMA,
        )
    return Interrupt(
        id=interrupt_id(run_id, seq),
        reason="answer",
        message=redact_credentials(summary),
        response_schema=ANSWER_SCHEMA,
    )


def answer_from(
    entry: ResumeEntry, effect: Effect[object] | None, field: str
) -> Result[object, FieldProblem]:
    """The outcome ``entry`` gives the waiting ``effect`` (``field`` names the entry in problems).

    Example:
        >>> entry = ResumeEntry(interrupt_id="r1#2", status="resolved", payload={"approved": True})
        >>> answer_from(entry, None, "resume[0]").unwrap()
        True
        >>> answer_from(entry.model_copy(update={"payload": {"ok": 1}}), None, "resume[0]").failure().field
        'resume[0].payload'
    """
    if entry.status == "cancelled":
        candidates: tuple[object, ...] = (Rejected("cancelled by the person asked"), False)
    else:
        schema = APPROVAL_SCHEMA if isinstance(effect, AskHuman) else ANSWER_SCHEMA
        problem = next(iter(jsonschema.Draft202012Validator(schema).iter_errors(entry.payload)), None)
        if problem is not None:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in problem.absolute_path)
            return Failure(FieldProblem(field=f"{field}.payload{where}", detail=problem.message))
        payload = entry.payload
        assert isinstance(payload, dict)  # the schema says so
        if not payload["approved"]:
            candidates = (Rejected(str(payload.get("reason") or "rejected")), False)
        elif "arguments" in payload:
            candidates = (Modified(payload["arguments"]),)
        else:
            candidates = (Approved(), True)
    if effect is None:
        return Success(candidates[-1])
    chosen = next((c for c in candidates if effect.accepts(c)), None)
    if chosen is None:
        kinds = ", ".join(type(c).__name__ for c in candidates)
        return Failure(
            FieldProblem(field=f"{field}.payload", detail=f"{effect.summary()} accepts no {kinds}")
        )
    return Success(chosen)
