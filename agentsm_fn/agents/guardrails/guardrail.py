"""A guardrail: a named check of a subject (a message, a result, a tool call), pure or asked of an LLM.

* A pure check is a function ``subject -> str | None``: the reason it trips, or None.
* An :class:`LlmCheck` asks a model: ``ask`` builds the request from the subject, ``read``
  turns the outcome into a reason or None. The request is an ordinary
  :class:`~agentsm_fn.llm.LlmCall` effect, so the shell performs it, the journal keeps its
  reply and a replay is exact. :func:`llm_guardrail` makes one from instructions: the model
  answers with a JSON verdict (:data:`VERDICT_SCHEMA`, asked as structured output); a failed
  call or a reply that is no verdict trips the guardrail (it fails closed).

A :class:`Guardrail` adds the name, what a trip does (:class:`OnTrip`) and the message the user
(or, for a tool call, the model) is told. It is a value any machine can use through a guarding
state (:func:`agentsm_fn.agents.guardrails.guarding`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Generic, TypeAlias, TypeVar, cast

import attrs

from agentsm_fn.agents.guardrails.values import GuardrailSpec, OnTrip
from agentsm_fn.agents.output.check import parse_reply
from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.json import JsonObject, freeze_object, thaw
from agentsm_fn.llm.messages import SystemMessage, ToolCall, UserMessage
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome

__all__ = [
    "VERDICT_SCHEMA",
    "PureCheck",
    "Guardrail",
    "LlmCheck",
    "describe_subject",
    "from_spec",
    "guardrail",
    "llm_guardrail",
    "read_verdict",
]

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)

PureCheck: TypeAlias = Callable[[S], str | None]
"""A pure check: the reason the subject trips the guardrail, or None when it passes."""

VERDICT_SCHEMA: JsonObject = freeze_object(
    {
        "type": "object",
        "properties": {
            "tripped": {"type": "boolean", "description": "true when the text breaks the rule"},
            "reason": {"type": "string", "description": "why, in one sentence"},
        },
        "required": ["tripped", "reason"],
    }
)
"""What an LLM check is asked to answer: ``{"tripped": bool, "reason": str}``."""

_VERDICT_INSTRUCTION = (
    'Answer with a JSON object only: {"tripped": true or false, "reason": "<one sentence>"}. '
    '"tripped" is true when the text breaks the rule.'
)


@attrs.frozen(kw_only=True)
class LlmCheck(Generic[S_contra]):
    """A check asked of a model: the request for a subject, and how its outcome reads.

    Example:
        >>> from agentsm_fn.llm import LlmReply
        >>> check = llm_guardrail("polite", "The text must be polite.").check
        >>> isinstance(check, LlmCheck), check.read(LlmReply(content='{"tripped": false, "reason": "ok"}'))
        (True, None)
    """

    ask: Callable[[S_contra], LlmRequest]
    read: Callable[[LlmOutcome], str | None]


@attrs.frozen(kw_only=True)
class Guardrail(Generic[S_contra]):
    """A named check of a subject, what a trip does, and the message a refusal gives.

    Example:
        >>> g = guardrail("short", lambda text: "too long" if len(text) > 5 else None)
        >>> g.name, g.on_trip.name, g.refusal("too long")
        ('short', 'REFUSE', 'Refused by the short guardrail: too long')
    """

    name: str
    check: PureCheck[S_contra] | LlmCheck[S_contra]
    on_trip: OnTrip = OnTrip.REFUSE
    message: str = ""
    spec: GuardrailSpec | None = None
    """Its data, when it is one :func:`llm_guardrail` made from instructions alone (a memory can keep it)."""

    @property
    def asks_llm(self) -> bool:
        """Whether the check is asked of a model (an effect) rather than a pure function."""
        return isinstance(self.check, LlmCheck)

    def refusal(self, reason: str) -> str:
        """What a refusal tells the user: the guardrail's message, else its name and the reason."""
        return self.message or f"Refused by the {self.name} guardrail: {reason}"


def guardrail(
    name: str, check: PureCheck[S], *, on_trip: OnTrip = OnTrip.REFUSE, message: str = ""
) -> Guardrail[S]:
    """A guardrail whose check is a pure function ``subject -> reason | None``.

    Example:
        >>> no_rm = guardrail("no-rm", lambda call: "deletes files" if call.name == "rm" else None,
        ...                   on_trip=OnTrip.ASK_HUMAN)
        >>> no_rm.check(ToolCall("c1", "rm", {})), no_rm.on_trip.value
        ('deletes files', 'ask_human')
    """
    return Guardrail(name=name, check=check, on_trip=on_trip, message=message)


def describe_subject(subject: object) -> str:
    """The text an LLM check is shown: a string as it is, a tool call as its name and JSON arguments.

    Example:
        >>> describe_subject("hi"), describe_subject(ToolCall("c1", "pay", {"eur": 5}))
        ('hi', 'pay({"eur":5})')
        >>> print(describe_subject((ToolCall("c1", "pay", {}), ToolCall("c2", "log", {}))))
        1. pay({})
        2. log({})
    """
    if isinstance(subject, str):
        return subject
    if isinstance(subject, ToolCall):
        return f"{subject.name}({subject.arguments_json})"
    if isinstance(subject, tuple | list):
        return "\n".join(f"{n}. {describe_subject(part)}" for n, part in enumerate(subject, start=1))
    if attrs.has(type(subject)):
        return json.dumps(
            attrs.asdict(cast(attrs.AttrsInstance, subject), recurse=True), default=_plain, sort_keys=True
        )
    return str(subject)


def _plain(value: object) -> object:
    try:
        return thaw(value)  # type: ignore[arg-type]  # a frozen JSON value, or not: then str
    except TypeError:
        return str(value)


def read_verdict(outcome: LlmOutcome) -> str | None:
    """The reason an LLM check's outcome trips its guardrail, or None; it fails closed.

    Example:
        >>> from agentsm_fn.llm import LlmReply
        >>> read_verdict(LlmReply(content='{"tripped": true, "reason": "asks for ACME"}'))
        'asks for ACME'
        >>> read_verdict(LlmReply(content='{"tripped": false, "reason": "fine"}')) is None
        True
        >>> read_verdict(LlmReply(content="Sure!"))
        'the check gave no verdict ($: not JSON (Expecting value at line 1 column 1))'
    """
    if isinstance(outcome, LlmFailure):
        return f"the check failed: {outcome.describe()}"
    parsed = parse_reply(outcome.content)
    if not isinstance(value := parsed.value_or(None), dict):
        return f"the check gave no verdict ({parsed.failure()})"
    tripped, reason = value.get("tripped"), value.get("reason")
    if not isinstance(tripped, bool):
        return "the check gave no verdict (no boolean 'tripped')"
    if not tripped:
        return None
    return reason if isinstance(reason, str) and reason.strip() else "the check tripped (no reason given)"


def llm_guardrail(
    name: str,
    instructions: str,
    *,
    model: str = "",
    on_trip: OnTrip = OnTrip.REFUSE,
    message: str = "",
    describe: Callable[[S], str] = describe_subject,
) -> Guardrail[S]:
    """A guardrail asked of a model: ``instructions`` state the rule, the subject is the user turn.

    ``model`` "" lets the provider choose; ``describe`` turns the subject into the text the
    model judges (:func:`describe_subject` by default). With the default, the guardrail is
    data too (its ``spec``): an agent keeps it in its memory, so a stored run keeps it and
    the built-in machine runs it.

    Example:
        >>> polite = llm_guardrail("polite", "The text must be polite.", model="small")
        >>> request = polite.check.ask("Give me the report, now.")
        >>> request.model, request.messages[1].content, request.response_name
        ('small', 'Give me the report, now.', 'guardrail_verdict')
    """

    def ask(subject: S) -> LlmRequest:
        return LlmRequest(
            model=model,
            messages=(
                SystemMessage(f"{instructions}\n\n{_VERDICT_INSTRUCTION}"),
                UserMessage(describe(subject)),
            ),
            response_schema=VERDICT_SCHEMA,
            response_name="guardrail_verdict",
            response_description=f"whether the text breaks the {name} guardrail's rule",
        )

    ask.__qualname__ = ask.__name__ = f"ask[{name}]"
    spec = None
    if describe is describe_subject:
        spec = GuardrailSpec(
            name=name, instructions=instructions, model=model, on_trip=on_trip, message=message
        )
    check = LlmCheck(ask=ask, read=read_verdict)
    return Guardrail(name=name, check=check, on_trip=on_trip, message=message, spec=spec)


def from_spec(spec: GuardrailSpec) -> Guardrail[object]:
    """The guardrail a memory's :class:`GuardrailSpec` stands for (as :func:`llm_guardrail` made it).

    Example:
        >>> polite = llm_guardrail("polite", "Be polite.", on_trip=OnTrip.STOP)
        >>> again = from_spec(polite.spec)
        >>> again.spec == polite.spec, again.check.ask("hi") == polite.check.ask("hi")
        (True, True)
    """
    return llm_guardrail(
        spec.name, spec.instructions, model=spec.model, on_trip=spec.on_trip, message=spec.message
    )
