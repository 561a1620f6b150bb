"""An AG-UI request (the protocol's ``RunAgentInput``) as our values, or the problem that refuses it.

The package's pydantic model checks the shape (``threadId``, ``runId`` and ``messages`` are
required); :func:`read_request` then checks what we rely on and converts the conversation
to our messages (:data:`agentsm_fn.llm.Message`)::

    threadId, runId     1-128 characters: letters, digits, ``.``, ``_``, ``:``, ``-``
                        (a runId names a stored run; it appears in URLs of the run API,
                        so one that looks like a credential is refused, as the run API does)
    messages            user, system, developer (as system), assistant (its tool calls'
                        arguments must be JSON objects) and tool messages; text parts only;
                        activity and reasoning messages are not conversation and are left out
    state               any JSON, kept as given (frozen)
    resume              answers to the interrupts of an earlier run (see ``interrupts``)

A problem is a :class:`~agentsm_fn.durable.running.fields.FieldProblem` (the server's one type for a
request value that does not fit): the field (``messages[2].content[1]``) and what is wrong.
"""

from __future__ import annotations

import json
import re

import attrs
from ag_ui.core import (
    AssistantMessage as AguiAssistant,
)
from ag_ui.core import (
    DeveloperMessage,
    ResumeEntry,
    RunAgentInput,
    TextPart,
    ToolMessage,
)
from ag_ui.core import (
    SystemMessage as AguiSystem,
)
from ag_ui.core import (
    UserMessage as AguiUser,
)
from returns.result import Failure, Result, Success

from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.llm.json import JsonValue, freeze
from agentsm_fn.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from agentsm_fn.server.models import RUN_ID

__all__ = ["AguiRequest", "read_request"]

_ID = re.compile(RUN_ID)
"""A threadId or runId: what the run API takes as a run id."""


@attrs.frozen(kw_only=True)
class AguiRequest:
    """One AG-UI run request: its ids, the conversation so far, the frontend's state, and its answers.

    Example:
        >>> request = AguiRequest(thread_id="t1", run_id="r1", messages=(UserMessage("hi"),))
        >>> request.last_user_text
        'hi'
    """

    thread_id: str
    run_id: str
    messages: tuple[Message, ...] = ()
    state: JsonValue = None
    resume: tuple[ResumeEntry, ...] = ()
    ids: tuple[str, ...] = ()
    """Each message's AG-UI id, in the order of ``messages`` (empty: none given)."""

    @property
    def last_user_text(self) -> str:
        """The text of the last user message ("" when there is none)."""
        return next((m.content for m in reversed(self.messages) if isinstance(m, UserMessage)), "")

    @property
    def user_messages(self) -> tuple[tuple[str, str], ...]:
        """Each user message as ``(id, text)``, in order (the id "" when none was given).

        Example:
            >>> request = AguiRequest(thread_id="t", run_id="r", messages=(UserMessage("hi"),), ids=("u1",))
            >>> request.user_messages
            (('u1', 'hi'),)
        """
        ids = self.ids or ("",) * len(self.messages)
        return tuple(
            (i, m.content) for i, m in zip(ids, self.messages, strict=True) if isinstance(m, UserMessage)
        )


def _text(content: object, field: str) -> Result[str, FieldProblem]:
    if isinstance(content, str):
        return Success(content)
    parts: list[str] = []
    for index, part in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(part, TextPart):
            kind = getattr(part, "type", type(part).__name__)
            return Failure(FieldProblem(field=f"{field}[{index}]", detail=f"{kind} parts are not supported"))
        parts.append(part.text)
    return Success("".join(parts))


def _call(call_id: str, name: str, arguments: str, field: str) -> Result[ToolCall, FieldProblem]:
    try:
        parsed = json.loads(arguments or "{}")
    except json.JSONDecodeError as error:
        return Failure(FieldProblem(field=field, detail=f"not JSON ({error.msg})"))
    if not isinstance(parsed, dict):
        return Failure(FieldProblem(field=field, detail="must be a JSON object"))
    return Success(ToolCall(call_id, name, parsed))


def _message(message: object, field: str, names: dict[str, str]) -> Result[Message | None, FieldProblem]:
    match message:
        case AguiUser(content=content):
            return _text(content, f"{field}.content").map(UserMessage)
        case AguiSystem(content=content) | DeveloperMessage(content=content):
            return Success(SystemMessage(content))
        case AguiAssistant(content=content, tool_calls=calls):
            made: list[ToolCall] = []
            for index, call in enumerate(calls or ()):
                names[call.id] = call.function.name
                where = f"{field}.toolCalls[{index}].function.arguments"
                converted = _call(call.id, call.function.name, call.function.arguments, where)
                if isinstance(converted, Failure):
                    return converted
                made.append(converted.unwrap())
            return Success(AssistantMessage(content or "", tuple(made)))
        case ToolMessage(content=content, tool_call_id=call_id, error=error):
            text = _text(content, f"{field}.content")
            name = names.get(call_id, "")
            return text.map(lambda t: ToolResultMessage(call_id, name, t, is_error=error is not None))
    return Success(None)  # activity and reasoning messages: not conversation


def read_request(given: RunAgentInput) -> Result[AguiRequest, FieldProblem]:
    """The request as our values, or the first problem found in it.

    Example:
        >>> hi = {"id": "m1", "role": "user", "content": "hi"}
        >>> given = RunAgentInput.model_validate({"threadId": "t1", "runId": "r1", "messages": [hi]})
        >>> read_request(given).unwrap().messages
        (UserMessage(content='hi'),)
        >>> read_request(given.model_copy(update={"run_id": "a/b"})).failure().field
        'runId'
    """
    for field, value in (("threadId", given.thread_id), ("runId", given.run_id)):
        if not _ID.fullmatch(value):
            return Failure(
                FieldProblem(field=field, detail="must be 1-128 letters, digits, '.', '_', ':' or '-'")
            )
    refused = refused_run_id(given.run_id)  # the Durable's own check, made before the stream starts
    if refused is not None:
        return Failure(FieldProblem(field="runId", detail=refused.why))
    messages: list[Message] = []
    ids: list[str] = []
    names: dict[str, str] = {}
    for index, message in enumerate(given.messages):
        converted = _message(message, f"messages[{index}]", names)
        if isinstance(converted, Failure):
            return converted
        if (made := converted.unwrap()) is not None:
            messages.append(made)
            ids.append(message.id)
    try:
        state = freeze(given.state)
    except TypeError as error:  # pragma: no cover - pydantic gives JSON values only
        return Failure(FieldProblem(field="state", detail=str(error)))
    return Success(
        AguiRequest(
            thread_id=given.thread_id,
            run_id=given.run_id,
            messages=tuple(messages),
            state=state,
            resume=tuple(given.resume or ()),
            ids=tuple(ids),
        )
    )
