"""A run's page as data, from one replay of its journal: every step's state and memory, its effects, its chat.

:func:`run_view` replays the stored run once (no effect is performed) and keeps the
first snapshot of each step: step 0 gives the whole memory, every later step only what
changed (:func:`~agentsm_fn.inspector.plain.memory_changes`, which turns into data only what
changed), so a 1,000-step run is sent once, its cost and size grow with the steps (not with
the steps times the memory's size, however long its history grows), and the page moves between
steps without asking again. With it: the transitions taken,
the journal's effects (outcome in words, how long each took, its idempotency key), the
pending effect, the chat transcript of a built-in agent, the forks of the run (one read keyed by
the parent, :func:`~agentsm_fn.durable.operations.forks.forks_of`), and why a
failed run failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.operations.forks import forks_of
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.store import JournalRow, RunRecord, RunStore
from agentsm_fn.inspector.machine_view import graph_data
from agentsm_fn.inspector.plain import memory_changes, plain
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


def _steps(
    snaps: list[Snapshot[Any, Any]], final: Snapshot[Any, Any] | None, redact: Redact
) -> list[JsonValue]:
    transitions = [e for e in (final.trace if final is not None else ()) if e.target]
    steps: list[JsonValue] = []
    first = snaps[0].steps if snaps else 0  # a fork starts at its parent's step, with an empty trace
    for before, snap in zip([None, *snaps], snaps, strict=False):
        if before is None:
            steps.append({"step": snap.steps, "state": snap.state.name, "memory": plain(snap.memory, redact)})
        else:
            index = snap.steps - first - 1
            entry = transitions[index] if index < len(transitions) else None
            steps.append(
                {
                    "step": snap.steps,
                    "state": snap.state.name,
                    "from": entry.state if entry else "",
                    "event": entry.event if entry else "",
                    "at": entry.timestamp if entry else None,
                    "changes": memory_changes(before.memory, snap.memory, redact),
                }
            )
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
    store: RunStore, durable: Durable[Any, Any, Any], record: RunRecord
) -> tuple[list[Snapshot[Any, Any]], Result[Snapshot[Any, Any], DurableError]]:
    """The first snapshot of each step, and the replay's end (one replay of the journal)."""
    firsts: list[Snapshot[Any, Any]] = []

    def seen(snap: Snapshot[Any, Any]) -> None:
        if not firsts or snap.steps > firsts[-1].steps:
            firsts.append(snap)

    return firsts, replay_stored(store, durable.machine, record.run_id, seen=seen)


def steps_view(store: RunStore, durable: Durable[Any, Any, Any], record: RunRecord) -> dict[str, JsonValue]:
    """What :func:`~agentsm_fn.inspector.compare.compare_views` reads of a run view: its record and steps."""
    firsts, replayed = _replay(store, durable, record)
    final = replayed.unwrap() if isinstance(replayed, Success) else None
    return {"run": record_data(record), "steps": _steps(firsts, final, credential_redactor())}


def _result(
    durable: Durable[Any, Any, Any], final: Snapshot[Any, Any] | None, redact: Callable[[str], str]
) -> JsonValue:
    """A finished run's result as a typed value: its class's name and its fields (None: no result)."""
    value = None if final is None else durable.result_of(final)
    if value is None:
        return None
    return {"type": type(value).__name__, "value": plain(value, redact)}


def run_view(store: RunStore, durable: Durable[Any, Any, Any], record: RunRecord) -> dict[str, JsonValue]:
    """Everything the run page shows about ``record``, replayed against ``durable``'s machine."""
    redact = credential_redactor()
    firsts, replayed = _replay(store, durable, record)
    final = replayed.unwrap() if isinstance(replayed, Success) else None
    rows = store.journal(record.run_id)
    journal, outcomes = _journal(record.run_id, rows.value_or(()), redact)
    waiting = next((j for j in journal if isinstance(j, dict) and j["waiting"]), None)
    forks = forks_of(store, record.run_id)
    errors = [r.failure().describe() for r in (replayed, rows, forks) if isinstance(r, Failure)]
    return {
        "run": record_data(record),
        "graph": graph_data(durable.machine),
        "steps": _steps(firsts, final, redact),
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
        "pending": waiting,
        "transcript": transcript(firsts[0].memory if firsts else None, outcomes, redact),
        "forks": [
            {"run_id": c.run_id, "step": c.parent_step, "status": c.status.value} for c in forks.value_or(())
        ],
        "failure": plain(record.reason, redact) if record.reason else None,
        "result": _result(durable, final, redact),
        "changed": _changed(durable, record, final),
        "problem": plain("; ".join(errors), redact) if errors else None,
    }
