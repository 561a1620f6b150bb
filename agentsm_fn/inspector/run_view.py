"""A run's page as data, from one replay of its journal: every step's state and memory, its effects, its chat.

:func:`run_view` replays the stored run once (no effect is performed) and, as the replay
passes each step, takes what it changed against the step before: step 0 gives the whole
memory, every later step only what changed (:func:`~agentsm_fn.inspector.plain.memory_changes`,
which turns into data only what changed), and no step's memory is kept. So a 1,000-step run
is sent once, its cost and size grow with the steps (not with the steps times the memory's
size, however long its history grows), and the page moves between steps without asking
again. With it: the transitions taken, the journal's effects (outcome in words, how long each
took, its idempotency key), the pending effect, the chat transcript of a built-in agent, the
forks of the run (one read keyed by the parent,
:func:`~agentsm_fn.durable.operations.forks.forks_of`), the threads (and turns) the run is a turn of,
and why a failed run failed. A step
out of a guarding state (``guarding(...)``: the ReAct agent's guardrails) says what its
guardrails did (``guardrail``: a label, the stage, the outcome, the guardrails checked and
the one that tripped), read from its memory as the replay passes it.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from typing import Any, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.guardrails import Guarding
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.operations.forks import forks_of
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.store import JournalRow, RunRecord, RunStatus, RunStore
from agentsm_fn.inspector.children_view import children_tree, mark_holder, parent_of, requested_at
from agentsm_fn.inspector.machine_view import graph_data
from agentsm_fn.inspector.pending_view import pending_below
from agentsm_fn.inspector.plain import memory_changes, plain
from agentsm_fn.inspector.thread_view import run_threads
from agentsm_fn.inspector.transcript import transcript
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.credentials import credential_redactor
from agentsm_fn.shell.keys import EffectKey
from agentsm_fn.shell.notes import duration, outcome_note

__all__ = ["record_data", "run_view", "steps_view"]

Redact = Callable[[str], str]


def record_data(record: RunRecord) -> dict[str, JsonValue]:
    """A run's stored record as data (status by its value, the reason redacted).

    Example:
        >>> from agentsm_fn.durable import RunRecord, RunStatus
        >>> record_data(RunRecord(run_id="r1", machine="app:M", fingerprint="f", status=RunStatus.FINISHED,
        ...                       created=1.0, updated=2.0))["status"]
        'finished'
    """
    redact = credential_redactor()
    data = {k: plain(v, redact) for k, v in attrs.asdict(record, recurse=False).items()}
    data["status"] = record.status.value
    return data


def _short(value: JsonValue, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _journal(
    run_id: str, rows: tuple[JournalRow, ...], redact: Redact
) -> tuple[list[JsonValue], list[tuple[int, object]]]:
    shown: list[JsonValue] = []
    outcomes: list[tuple[int, object]] = []
    for row in rows:
        note, failed, outcome = "", False, None
        if row.outcome is not None:
            decoded = from_bytes(row.outcome, object)
            if isinstance(decoded, Success):
                outcome = decoded.unwrap()
                outcomes.append((row.seq, outcome))
                note, failed = outcome_note(outcome)
                if note == type(outcome).__name__:  # no words for it: show the value, short
                    note = _short(plain(outcome, redact))
            else:
                note, failed = "the outcome cannot be read: " + decoded.failure().describe(), True
        started = row.ticks[-1] if row.ticks else None
        took = row.at - started if row.at is not None and started is not None else None
        shown.append(
            {
                "seq": row.seq,
                "effect": plain(row.summary, redact),
                "outcome": plain(note, redact)
                if row.outcome is not None
                else ("waiting" if row.waiting else "started"),
                "failed": failed,
                "waiting": row.waiting and row.outcome is None,
                "started": started,
                "at": row.at,
                "took": duration(took) if took is not None else None,
                "key": str(EffectKey(run_id, row.seq)),
            }
        )
    return shown, outcomes


_Step = tuple[int, str, JsonValue, JsonValue]
"""A step as the replay passes it: its number, its state's name, its memory (step 0) or what changed,
and what its guardrails did (a step out of a guarding state; else None)."""


def _guarding(machine: Machine[Any, Any, Any]) -> dict[object, Guarding[Any, Any, Any]]:
    return {s: h for s, h in machine.handlers.items() if isinstance(h, Guarding)}


def _guardrail(
    guarding: dict[object, Guarding[Any, Any, Any]], snap: Snapshot[Any, Any], redact: Redact
) -> JsonValue:
    """What the step into ``snap`` did, if it left a guarding state: the guardrails checked, any trip."""
    if not guarding:
        return None
    row = next((r for r in reversed(snap.trace.rows) if r[3] is not None), None)
    handler = None if row is None else guarding.get(row[1])
    if row is None or handler is None:
        return None
    done = handler.outcome(cast(enum.Enum, row[2]), snap.memory)
    return {
        "label": redact(done.label()),
        "stage": done.stage,
        "outcome": done.outcome,
        "checked": list(done.checked),
        "tripped": done.tripped,
    }


def _steps(seen: list[_Step], final: Snapshot[Any, Any] | None) -> list[JsonValue]:
    transitions = [e for e in (final.trace if final is not None else ()) if e.target]
    steps: list[JsonValue] = []
    first = seen[0][0] if seen else 0  # a fork starts at its parent's step, with an empty trace
    for number, state, shown, guarded in seen:
        if not steps:
            steps.append({"step": number, "state": state, "memory": shown})
            continue
        index = number - first - 1
        entry = transitions[index] if index < len(transitions) else None
        step: dict[str, JsonValue] = {
            "step": number,
            "state": state,
            "from": entry.state if entry else "",
            "event": entry.event if entry else "",
            "at": entry.timestamp if entry else None,
            "changes": shown,
        }
        if guarded is not None:
            step["guardrail"] = guarded
        steps.append(step)
    return steps


def _changed(
    durable: Durable[Any, Any, Any], record: RunRecord, final: Snapshot[Any, Any] | None
) -> str | None:
    """Why the steps shown may not be the steps the run took: another version of the machine stored it."""
    if not record.fingerprint or record.fingerprint == durable.fingerprint:
        return None
    why = (
        "Stored by another version of this machine: the steps shown are what the code served now"
        " makes of its journal."
    )
    if final is not None and record.state and record.state != final.state.name and record.status.unfinished:
        why += f" The run stopped in {record.state}; replayed now it reaches {final.state.name}."
    return why


def _replay(
    store: RunStore, durable: Durable[Any, Any, Any], record: RunRecord, redact: Redact
) -> tuple[Snapshot[Any, Any] | None, list[_Step], Result[Snapshot[Any, Any], DurableError]]:
    """The first snapshot, each step (its memory or what changed), and the replay's end (one replay).

    What changed is taken as the replay passes each step, against the step before only: no
    step's memory is kept, so a run's view holds what its steps changed, not every memory.
    """
    steps: list[_Step] = []
    ends: list[Snapshot[Any, Any]] = []  # the first snapshot, and the first of the newest step
    guarding = _guarding(durable.machine)

    def seen(snap: Snapshot[Any, Any]) -> None:
        if not ends:
            steps.append((snap.steps, snap.state.name, plain(snap.memory, redact), None))
            ends.extend((snap, snap))
        elif snap.steps > ends[1].steps:
            changed = memory_changes(ends[1].memory, snap.memory, redact)
            steps.append((snap.steps, snap.state.name, changed, _guardrail(guarding, snap, redact)))
            ends[1] = snap

    replayed = replay_stored(store, durable.machine, record.run_id, seen=seen)
    return (ends[0] if ends else None), steps, replayed


def steps_view(store: RunStore, durable: Durable[Any, Any, Any], record: RunRecord) -> dict[str, JsonValue]:
    """What :func:`~agentsm_fn.inspector.compare.compare_views` reads of a run view: its record and steps."""
    _, seen, replayed = _replay(store, durable, record, credential_redactor())
    final = replayed.unwrap() if isinstance(replayed, Success) else None
    return {"run": record_data(record), "steps": _steps(seen, final)}


def _result(
    durable: Durable[Any, Any, Any], final: Snapshot[Any, Any] | None, redact: Callable[[str], str]
) -> JsonValue:
    """A finished run's result as a typed value: its class's name and its fields (None: no result)."""
    value = None if final is None else durable.result_of(final)
    if value is None:
        return None
    return {"type": type(value).__name__, "value": plain(value, redact)}


def _link_children(
    children: list[JsonValue], steps_of: dict[int, int], journal: list[JsonValue], steps: list[JsonValue]
) -> None:
    """Mark each effect (journal row) and step that started children with their ids; each child its step."""
    started: dict[int, list[JsonValue]] = {}
    for child in children:
        if isinstance(child, dict) and isinstance(child["seq"], int):
            child["step"] = steps_of.get(child["seq"])
            started.setdefault(child["seq"], []).append(child["run_id"])
    for row in journal:
        if isinstance(row, dict) and row["seq"] in started:
            row["children"] = started[cast(int, row["seq"])]
    by_step: dict[object, list[JsonValue]] = {}
    for seq, ids in started.items():
        by_step.setdefault(steps_of.get(seq), []).extend(ids)
    for step in steps:
        if isinstance(step, dict) and step["step"] in by_step:
            step["children"] = by_step[step["step"]]


def run_view(store: RunStore, durable: Durable[Any, Any, Any], record: RunRecord) -> dict[str, JsonValue]:
    """Everything the run page shows about ``record``, replayed against ``durable``'s machine."""
    redact = credential_redactor()
    start, seen, replayed = _replay(store, durable, record, redact)
    final = replayed.unwrap() if isinstance(replayed, Success) else None
    rows = store.journal(record.run_id)
    journal, outcomes = _journal(record.run_id, rows.value_or(()), redact)
    waiting = next((j for j in journal if isinstance(j, dict) and j["waiting"]), None)
    none: dict[str, JsonValue] = {}
    below = pending_below(store, record.run_id, redact) if waiting is not None else Success(none)
    forks = forks_of(store, record.run_id)
    children = children_tree(store, record.run_id)
    looked = (replayed, rows, forks, children, below)
    errors = [r.failure().describe() for r in looked if isinstance(r, Failure)]
    steps = _steps(seen, final)
    requests = requested_at(final.trace if final is not None else ())
    _link_children(children.value_or([]), requests, journal, steps)
    if final is not None and record.status is RunStatus.FINISHED:
        mark_holder(store, record.run_id, final.memory, children.value_or([]))
    return {
        "run": record_data(record),
        "graph": graph_data(durable.machine),
        "steps": steps,
        "trace": [
            {
                "step": e.step,
                "state": e.state,
                "event": e.event,
                "target": e.target,
                "data": plain(e.data, redact),
            }
            for e in (final.trace if final is not None else ())
        ],
        "journal": journal,
        "pending": below.value_or({}) or waiting,  # a child's approval, if it waits on its children
        "transcript": transcript(start.memory if start else None, outcomes, redact),
        "forks": [
            {"run_id": c.run_id, "step": c.parent_step, "status": c.status.value} for c in forks.value_or(())
        ],
        "children": children.value_or([]),
        "parent": parent_of(store, record.run_id),
        "threads": run_threads(store, [record.run_id]).value_or({}).get(record.run_id, []),
        "failure": plain(record.reason, redact) if record.reason else None,
        "result": _result(durable, final, redact),
        "changed": _changed(durable, record, final),
        "problem": plain("; ".join(errors), redact) if errors else None,
    }
