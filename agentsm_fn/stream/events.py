"""A run as events: frozen, plain values, in the order the run produced them.

A run stream (``agentsm_fn.shell.astream``) yields these, and a stored run's events are
derived from its journal by replay (``agentsm_fn.durable.stored_events``): the same
values either way. Every field is a string, a number, a bool or an :class:`OutcomeKind`,
so an event has one JSON form (:mod:`agentsm_fn.stream.wire`) and a server sends it as
it is; only the Python-only fields stay out of it: ``result`` (the value the run call
returns) and ``EffectCompleted.value`` (the outcome itself).

Event tree::

    RunEvent
    ├── RunStarted          the run's id, machine, fingerprint, where it starts     position 0
    ├── Transitioned        one row of the table taken: step, state, event, target  history
    ├── EffectRequested     a performer is about to perform an effect               history
    ├── EffectCompleted     its outcome (ok, failed, unknown, suspended), duration  history
    ├── LlmTextDelta        answer text as a streaming provider produces it         live only
    ├── ToolCallArgsDelta   a tool call's JSON arguments as they are produced       live only
    ├── AwaitingOutcome     the run stopped, waiting for an effect's outcome        standing
    ├── Finished            the run reached a terminal state                        standing
    └── Failed              the run stopped with a failure value                    standing

``position`` places an event in its run. The run's *history* is ``RunStarted`` (0), then
one event per trace row (``Transitioned``, ``EffectRequested``) and one per outcome the run
consumed (``EffectCompleted``), numbered 1, 2, 3, ... in order: a run's journal and trace
give the same numbers on replay, so a client that knows the last position it saw can be
given exactly what it missed. Everything else carries the position of what it belongs to
and is not history: deltas and the *parts* of an effect (a tool batch's calls,
``part`` set) carry their effect's position; ``AwaitingOutcome``, ``Finished`` and ``Failed`` say
where the run stands and carry the position the next history event would have (a waiting
run's answer arrives there). An ``EffectCompleted`` whose outcome is ``SUSPENDED`` is
standing too: it comes right before ``AwaitingOutcome``.
"""

from __future__ import annotations

import enum
from typing import TypeAlias

import attrs

__all__ = [
    "AwaitingOutcome",
    "EffectCompleted",
    "EffectRequested",
    "Failed",
    "Finished",
    "LlmTextDelta",
    "OutcomeKind",
    "RunEvent",
    "RunStarted",
    "ToolCallArgsDelta",
    "Transitioned",
    "history_position",
]


class OutcomeKind(enum.Enum):
    """What came of an effect."""

    OK = "ok"
    """The performer delivered an outcome the machine takes as a success."""
    FAILED = "failed"
    """It failed: raised, timed out, was rejected, or gave a failure value (an LLM error, a failed tool)."""
    UNKNOWN = "unknown"
    """It was in flight when its process died and is not retry-safe: nobody knows what happened."""
    SUSPENDED = "suspended"
    """Its performer paused the run (a human approval): the outcome arrives later."""


def _python_only() -> object:
    """A field for Python consumers: not compared, not shown, not in the JSON form."""
    return attrs.field(default=None, eq=False, repr=False, metadata={"json": False})


@attrs.frozen(kw_only=True)
class RunStarted:
    """A run started (or went on from a stored or suspended point: ``resumed``).

    Example:
        >>> RunStarted(run_id="r1", machine="react", fingerprint="ab12", state="Idle").position
        0
    """

    run_id: str
    machine: str
    fingerprint: str
    state: str
    """The state it starts in."""
    steps: int = 0
    """Transitions it had taken before this start (a resumed or forked run)."""
    resumed: bool = False
    position: int = 0


@attrs.frozen(kw_only=True)
class Transitioned:
    """The run took the row ``(state, event) -> target``: its ``step``-th transition.

    ``data``: the trace row's data, credentials out (a ReAct guardrail's row: its guardrail, action, reason).

    Example:
        >>> Transitioned(run_id="r1", position=1, step=1, state="Idle", event="START",
        ...              target="Planning", at=0.0).target
        'Planning'
    """

    run_id: str
    position: int
    step: int
    state: str
    event: str
    target: str
    at: float
    """The shell's clock reading when it was recorded (seconds since the epoch)."""
    data: str = ""


@attrs.frozen(kw_only=True)
class EffectRequested:
    """A performer is about to perform an effect the run (``state``) asked for.

    ``effect`` is its type's name, ``summary`` what it says of itself, as the trace keeps
    it (``Effect.summary`` never includes a secret; it is not redacted again here). A *part*
    of an effect (one call of a parallel tool batch) has ``part`` set to its index and
    carries the position of the effect it is part of.

    Example:
        >>> EffectRequested(run_id="r1", position=2, state="Planning", effect="LlmCall",
        ...                 summary="LlmCall plan model='m'").part is None
        True
    """

    run_id: str
    position: int
    state: str
    effect: str
    summary: str
    part: int | None = None


@attrs.frozen(kw_only=True)
class EffectCompleted:
    """What came of an effect: its kind, a short note on the outcome, and how long it took.

    ``requested`` is the position of the :class:`EffectRequested` it answers (for a part,
    the position of the effect it is part of, like ``position``); ``value`` is the outcome
    itself, for Python consumers (a tool's result, the LLM's reply).

    Example:
        >>> EffectCompleted(run_id="r1", position=3, requested=2, effect="LlmCall",
        ...                 outcome=OutcomeKind.OK, note="answer (5 chars)", seconds=0.4).outcome.value
        'ok'
    """

    run_id: str
    position: int
    requested: int
    effect: str
    outcome: OutcomeKind
    note: str
    seconds: float
    part: int | None = None
    value: object = _python_only()
    """The outcome itself (Python only: not in the JSON form); None if the performer raised."""


@attrs.frozen(kw_only=True)
class LlmTextDelta:
    """A piece of answer text, as a streaming provider produced it for the effect at ``position``.

    (The provider's own :class:`agentsm_fn.providers.TextDelta`, attributed to its run.)

    Example:
        >>> LlmTextDelta(run_id="r1", position=2, text="Hel").text
        'Hel'
    """

    run_id: str
    position: int
    text: str


@attrs.frozen(kw_only=True)
class ToolCallArgsDelta:
    """A fragment of the JSON arguments of tool call ``index`` of the LLM reply at ``position``.

    Every fragment names its call (``call_id``, ``name``); the first of a call may be
    empty (the model named the call before its arguments). Concatenate the fragments.

    Example:
        >>> ToolCallArgsDelta(run_id="r1", position=2, index=0, call_id="c1", name="search",
        ...                   fragment='{"q"').fragment
        '{"q"'
    """

    run_id: str
    position: int
    index: int
    call_id: str
    name: str
    fragment: str


@attrs.frozen(kw_only=True)
class AwaitingOutcome:
    """The run stopped to wait for the outcome of the effect requested at ``requested``.

    ``result`` is what the run call returns (a suspended snapshot, a ``StoredRun``,
    an agent's ``Suspended``): Python only, not in the JSON form.

    Example:
        >>> AwaitingOutcome(run_id="r1", position=5, requested=4, effect="AskHuman",
        ...          summary="AskHuman search").effect
        'AskHuman'
    """

    run_id: str
    position: int
    requested: int
    effect: str
    summary: str
    result: object = _python_only()


@attrs.frozen(kw_only=True)
class Finished:
    """The run reached the terminal ``state`` after ``steps`` transitions.

    ``result`` is what the run call returns (Python only, not in the JSON form).

    Example:
        >>> Finished(run_id="r1", position=9, state="Done", steps=4).state
        'Done'
    """

    run_id: str
    position: int
    state: str
    steps: int
    result: object = _python_only()


@attrs.frozen(kw_only=True)
class Failed:
    """The run stopped in ``state`` with a failure: ``reason`` names its kind, ``detail`` says it.

    ``reason`` is the failure's class name (``InvalidTransition``, ``EffectFailed``, a
    durable run's ``RunBusy``, ...); ``detail`` has credentials redacted. ``result`` is
    what the run call returns (Python only, not in the JSON form).

    Example:
        >>> Failed(run_id="r1", position=3, state="Acting", steps=2, reason="HandlerRaised",
        ...        detail="Acting raised ValueError: bad").reason
        'HandlerRaised'
    """

    run_id: str
    position: int
    state: str
    steps: int
    reason: str
    detail: str
    result: object = _python_only()


RunEvent: TypeAlias = (
    RunStarted
    | Transitioned
    | EffectRequested
    | EffectCompleted
    | LlmTextDelta
    | ToolCallArgsDelta
    | AwaitingOutcome
    | Finished
    | Failed
)
"""Anything a run stream yields."""


def history_position(event: RunEvent) -> int | None:
    """The event's position if it is history (one place in its run, given once), else None.

    A server uses it as the event's id: a client that reconnects after position ``n``
    is given the history after ``n`` and the events that say where the run stands.

    Example:
        >>> history_position(LlmTextDelta(run_id="r1", position=2, text="Hi")) is None
        True
        >>> history_position(Transitioned(run_id="r1", position=1, step=1, state="A", event="GO",
        ...                               target="B", at=0.0))
        1
    """
    if isinstance(event, RunStarted | Transitioned):
        return event.position
    if isinstance(event, EffectRequested) and event.part is None:
        return event.position
    if isinstance(event, EffectCompleted) and event.part is None:
        return None if event.outcome is OutcomeKind.SUSPENDED else event.position
    return None
