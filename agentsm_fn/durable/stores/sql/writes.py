"""The writes every store makes alike, in SQL both SQLite and PostgreSQL run (``?`` marks a parameter).

Storing a run, queueing one, renewing a lease, keeping a trace context and answering a waiting
effect are the same statements on both databases, so they are written once here, over a
store's :meth:`StoreWrites._change`. What differs (the ownership fence of journal writes,
claims, stops, checkpoints and the group commit) lives in each store's subpackage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from returns.result import Result

from agentsm_fn.durable.errors import AnswerRefusal, AnswerRefused, RunBusy, StoreFailure
from agentsm_fn.durable.stores.protocol.store import NewRun
from agentsm_fn.durable.stores.sql.group import owned
from agentsm_fn.durable.stores.sql.reads import StoreReads, comparable
from agentsm_fn.durable.stores.sql.rows import (
    NEW_RUN_COLUMNS,
    answered,
    carrier_text,
    new_run_values,
    refusal,
)

__all__ = ["INSERT_RUN", "Execute", "StoreWrites", "answering"]

T = TypeVar("T")

INSERT_RUN = (
    f"INSERT INTO runs({NEW_RUN_COLUMNS}) VALUES ({', '.join(['?'] * len(NEW_RUN_COLUMNS.split(',')))})"
)
"""Store a new run from :func:`~agentsm_fn.durable.stores.sql.rows.new_run_values`."""


class Cursor(Protocol):
    """What a statement gives back, on either database."""

    @property
    def rowcount(self) -> int:
        """The rows the statement wrote."""
        ...

    def fetchone(self) -> tuple[object, ...] | None:
        """The next row it returned."""
        ...


Execute = Callable[[str, tuple[object, ...]], Cursor]
"""Run one statement (``?`` marks a parameter) in the write's transaction."""


def answering(
    execute: Execute, run_id: str, seq: int, outcome: bytes, at: float, take: tuple[str, float] | None = None
) -> bool:
    """The answer's statements, in a write's transaction: whether the waiting effect took it (once).

    A run that waits on it is made READY (``take``: RUNNING, owned by that owner until then, who
    goes on with it); a finished or cancelled run takes no answer.
    """
    updated = execute(
        "UPDATE journal SET outcome = ?, at = ? WHERE run_id = ? AND seq = ? AND waiting "
        "AND outcome IS NULL AND NOT EXISTS (SELECT 1 FROM runs WHERE id = ? "
        "AND status IN ('finished', 'cancelled'))",
        (outcome, at, run_id, comparable(seq), run_id),
    ).rowcount
    if updated and take is None:
        execute(
            "UPDATE runs SET status = 'ready', updated = ? WHERE id = ? AND status = 'waiting'", (at, run_id)
        )
    elif updated and take is not None:
        execute(
            "UPDATE runs SET status = 'running', owner = ?, lease_until = ?, updated = ? "
            "WHERE id = ? AND status = 'waiting'",
            (*take, at, run_id),
        )
    return updated > 0


class StoreWrites(StoreReads):
    """The writes of a :class:`~agentsm_fn.durable.stores.protocol.store.RunStore` both databases make."""

    def _change(
        self, operation: str, work: Callable[[Execute], T], run_id: str = "", one_statement: bool = False
    ) -> Result[T, StoreFailure]:
        """``work`` in one transaction (none of its own if ``one_statement``); an error is a StoreFailure."""
        raise NotImplementedError  # each store runs statements its own way

    def create(self, run: NewRun) -> Result[None, StoreFailure]:
        """Store a new run (status RUNNING, owned by ``run.owner``).

        A durable run does not call this: its run row is written with its first journal row
        (or when it stops), in the same transaction, saving one commit per run.
        """

        def work(execute: Execute) -> None:
            execute(INSERT_RUN, new_run_values(run))

        return self._change("create run", work, run.run_id, one_statement=True)

    def enqueue(self, run: NewRun) -> Result[None, StoreFailure]:
        """Store ``run`` as READY, owned by nobody (PostgreSQL's trigger announces it when this commits)."""

        def work(execute: Execute) -> None:
            execute(INSERT_RUN, new_run_values(run, queued=True))

        return self._change("enqueue run", work, run.run_id, one_statement=True)

    def renew(self, run_id: str, owner: str, until: float) -> Result[None, RunBusy | StoreFailure]:
        """Extend ``owner``'s lease on the run to ``until``; ``RunBusy`` if it no longer owns it."""

        def work(execute: Execute) -> int:
            sql = "UPDATE runs SET lease_until = ? WHERE id = ? AND owner = ? AND status = 'running'"
            return execute(sql, (until, run_id, owner)).rowcount

        return owned(self._change("renew lease", work, run_id, one_statement=True), run_id)

    def save_trace_context(self, run_id: str, carrier: Mapping[str, str]) -> Result[None, StoreFailure]:
        """Keep ``carrier`` as the run's trace context, unless it has one (the first is kept)."""
        text = carrier_text(carrier)

        def work(execute: Execute) -> None:
            sql = "INSERT INTO trace_contexts(run_id, carrier) VALUES (?, ?) ON CONFLICT (run_id) DO NOTHING"
            execute(sql, (run_id, text))

        return self._change("save trace context", work, run_id, one_statement=True)

    def answer(
        self, run_id: str, seq: int, outcome: bytes, at: float
    ) -> Result[None, AnswerRefused | StoreFailure]:
        """Commit the answer to a waiting effect, once: a second answer (even a concurrent one) is refused."""
        entry = comparable(seq)

        def work(execute: Execute) -> tuple[AnswerRefusal, str] | None:
            if answering(execute, run_id, seq, outcome, at):
                return None
            found = execute(
                "SELECT waiting, outcome IS NOT NULL FROM journal WHERE run_id = ? AND seq = ?",
                (run_id, entry),
            ).fetchone()
            return refusal(run_id, seq, found)

        return answered(self._change("answer", work, run_id), run_id, seq)
