"""A stored run read back as :class:`~agentsm_fn.evals.evidence.Evidence`: by replay, performing nothing.

The run's record says how it ended; its final snapshot is the one the run stopped at (or,
for a run stored earlier, its journal replayed); its tokens are the usage of every LLM reply
in its journal and its seconds the span of its clock readings. Its steps, the kit's
:class:`~verification.kit.Transition` values, are rebuilt from one more replay, only when an
evaluator asks for them: every snapshot the replay passes through, grouped by transition,
with the effects asked for and the outcomes received on the way.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from returns.result import Failure, Result, Success

from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable import DurableError, RunStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.evals.cases import Case
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.llm.replies import LlmReply, Usage
from verification.kit.invariants import Transition

__all__ = ["evidence_of", "run_steps", "run_usage"]

AnySnapshot = Snapshot[Any, Any]
"""A snapshot of any machine (evidence is read from runs of every kind)."""


def run_usage(snapshot: Snapshot[Any, Any]) -> tuple[Usage, tuple[LlmReply, ...], float]:
    """The tokens of the run's LLM replies, the replies, and the seconds its clock readings span.

    Example:
        >>> from agentsm_fn.core.journal import Journal
        >>> from agentsm_fn.agents.react import State
        >>> from agentsm_fn.llm import LlmCall, LlmRequest
        >>> call = LlmCall(LlmRequest(model="m", messages=()))
        >>> journal = Journal().tick(1.0).outcome(call, LlmReply(usage=Usage(input_tokens=7)), 2.5)
        >>> usage, replies, seconds = run_usage(Snapshot(state=State.Done, memory=None, journal=journal))
        >>> usage.input_tokens, len(replies), seconds
        (7, 1, 1.5)
    """
    replies = tuple(e.outcome for e in snapshot.journal if isinstance(e.outcome, LlmReply))
    readings = [e.at for e in snapshot.journal]
    seconds = max(readings) - min(readings) if readings else 0.0
    return sum((r.usage for r in replies), Usage()), replies, seconds


def run_steps(
    machine: Machine[Any, Any, Any], snapshots: list[AnySnapshot]
) -> tuple[Transition[enum.Enum, object], ...]:
    """The transitions of a run from the snapshots its replay passed through, in order.

    Each handler call or outcome gives a snapshot; a snapshot awaiting an effect adds that
    effect to the step under way, one resumed from an awaiting one adds the outcome it took
    (the last entry of its journal), and one whose step count grew ends the step: its row is
    the last row of its trace.
    """
    if not snapshots:
        return ()
    found: list[Transition[enum.Enum, object]] = []
    entry = snapshots[0]
    effects: list[Any] = []
    outcomes: list[object] = []
    previous = entry
    for snap in snapshots[1:]:
        if previous.status is Status.AWAITING and len(snap.journal) > len(previous.journal):
            outcomes.append(snap.journal[len(snap.journal) - 1].outcome)
        if (
            snap.status is Status.AWAITING
            and snap.pending is not None
            and snap.pending is not previous.pending
        ):
            effects.append(snap.pending)
        if snap.steps > entry.steps:
            row = snap.trace[len(snap.trace) - 1]
            found.append(
                Transition(
                    index=snap.steps,
                    source=machine.states[row.state],
                    event=machine.events[row.event],
                    target=machine.states[row.target],
                    before=entry.memory,
                    after=snap.memory,
                    effects=tuple(effects),
                    outcomes=tuple(outcomes),
                )
            )
            entry, effects, outcomes = snap, [], []
        previous = snap
    return tuple(found)


def _steps(store: RunStore, machine: Machine[Any, Any, Any], run_id: str) -> Callable[[], tuple[Any, ...]]:
    def read() -> tuple[Transition[enum.Enum, object], ...]:
        seen: list[AnySnapshot] = []
        replay_stored(store, machine, run_id, seen=seen.append)
        return run_steps(machine, seen)

    return read


def evidence_of(
    store: RunStore,
    machine: Machine[Any, Any, Any],
    run_id: str,
    case: Case,
    answer: Callable[[Any], JsonValue],
    snapshot: AnySnapshot | None = None,
    ended: tuple[str, str] | None = None,
) -> Result[tuple[Evidence, tuple[LlmReply, ...]], DurableError]:
    """The evidence of the stored run ``run_id`` of ``case`` (and its LLM replies, to price them).

    ``snapshot`` is where the run stopped and ``ended`` its stored status and reason, when the
    caller has them (it just ran the run); else they are read: the record, and the journal replayed.
    """
    if ended is None:
        record = store.get(run_id)
        if isinstance(record, Failure):
            return record
        ended = (record.unwrap().status.value, record.unwrap().reason)
    if snapshot is None:
        replayed = replay_stored(store, machine, run_id)
        if isinstance(replayed, Failure):
            return replayed
        snapshot = replayed.unwrap()
    usage, replies, seconds = run_usage(snapshot)
    evidence = Evidence(
        case=case.name,
        run_id=run_id,
        status=ended[0],
        state=snapshot.state.name,
        answer=answer(snapshot.memory),
        input=case.input,
        expected=case.expected,
        metadata=case.metadata,
        failure=ended[1],
        steps=snapshot.steps,
        usage=usage,
        seconds=seconds,
        memory=snapshot.memory,
        read_steps=_steps(store, machine, run_id),
    )
    return Success((evidence, replies))
