"""A run as a stream of typed events: the values and their one JSON form (pure).

The events (:mod:`agentsm_fn.stream.events`) are what ``agentsm_fn.astream`` yields
while a run goes on and what ``agentsm_fn.durable.stored_events`` derives from a stored
run's journal; :func:`event_to_json` / :func:`event_from_json` are their JSON form, so a server sends
them as they are. A child run's events travel in its parent's stream as :class:`ChildEvent`
(:func:`child_event_to_json` / :func:`child_event_from_json`). This package does no IO: the async
plumbing lives in the shell.

Example:
    >>> event = Transitioned(run_id="r1", position=1, step=1, state="Idle", event="START",
    ...                      target="Planning", at=0.0)
    >>> event_from_json(event_to_json(event)).unwrap() == event
    True
"""

from agentsm_fn.stream.children import ChildEvent, child_event_from_json, child_event_to_json
from agentsm_fn.stream.events import (
    AwaitingOutcome,
    EffectCompleted,
    EffectRequested,
    Failed,
    Finished,
    LlmTextDelta,
    OutcomeKind,
    RunEvent,
    RunStarted,
    ToolCallArgsDelta,
    Transitioned,
    history_position,
)
from agentsm_fn.stream.wire import MalformedEvent, event_from_json, event_to_json

__all__ = [
    "AwaitingOutcome",
    "ChildEvent",
    "EffectCompleted",
    "EffectRequested",
    "Failed",
    "Finished",
    "LlmTextDelta",
    "MalformedEvent",
    "OutcomeKind",
    "RunEvent",
    "RunStarted",
    "ToolCallArgsDelta",
    "Transitioned",
    "child_event_from_json",
    "child_event_to_json",
    "event_from_json",
    "event_to_json",
    "history_position",
]
