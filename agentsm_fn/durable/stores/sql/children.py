"""Child runs in SQL both SQLite and PostgreSQL run alike (``?`` marks a parameter).

The ``children`` table (:mod:`agentsm_fn.durable.stores.protocol.children`): one row per child of
a parent's effect, keyed by the child's run id, with the parent, the effect's seq, the child's
index, the group's size, limit and policy, the start memory and, once the child ended, its
outcome. A child is started when its run row exists (read by a join, never kept twice).
"""

from __future__ import annotations

from returns.result import Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.children import ChildRecord, NewChild
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStatus
from agentsm_fn.durable.stores.sql.child_stops import StoreChildStops, insert_children
from agentsm_fn.durable.stores.sql.reads import Rows, comparable
from agentsm_fn.durable.stores.sql.writes import Execute, answering

__all__ = ["StoreChildren", "child_schema"]

_SELECT = (
    "SELECT c.run_id, c.parent, c.seq, c.idx, c.size, c.program, c.memory, c.lim, c.cancel_rest, "
    "c.outcome, r.status, r.fingerprint FROM children c LEFT JOIN runs r ON r.id = c.run_id"
)


def child_schema(text: str, integer: str, blob: str) -> tuple[str, ...]:
    """The statements that create the children table (idempotent), in a database's column types.

    Example:
        >>> child_schema("TEXT", "INTEGER", "BLOB")[0].split("(")[0].strip()
        'CREATE TABLE IF NOT EXISTS children'
    """
    return (
        f"""CREATE TABLE IF NOT EXISTS children (
            run_id {text} PRIMARY KEY,
            parent {text} NOT NULL,
            seq {integer} NOT NULL,
            idx {integer} NOT NULL,
            size {integer} NOT NULL,
            program {text} NOT NULL,
            memory {blob} NOT NULL,
            lim {integer} NOT NULL,
            cancel_rest {integer} NOT NULL,
            outcome {blob}
        )""",
        "CREATE INDEX IF NOT EXISTS children_by_parent ON children (parent, seq, idx)",
    )


def _blob(value: object) -> bytes:
    data: bytes = bytes(value)  # type: ignore[call-overload]  # a BLOB column: bytes or memoryview
    return data


def _records(rows: Rows) -> tuple[ChildRecord, ...]:
    return tuple(
        ChildRecord(
            run_id=str(run_id),
            parent=str(parent),
            seq=int(str(seq)),
            index=int(str(idx)),
            size=int(str(size)),
            program=str(program),
            memory=_blob(memory),
            limit=int(str(lim)),
            cancel_rest=bool(cancel_rest),
            outcome=None if outcome is None else _blob(outcome),
            status=None if status is None else RunStatus(status),
            fingerprint="" if fingerprint is None else str(fingerprint),
        )
        for (
            run_id,
            parent,
            seq,
            idx,
            size,
            program,
            memory,
            lim,
            cancel_rest,
            outcome,
            status,
            fingerprint,
        ) in rows
    )


class StoreChildren(StoreChildStops):
    """Both databases' child rows (:class:`~agentsm_fn.durable.stores.protocol.children.ChildStore`)."""

    def add_children(
        self, children: tuple[NewChild, ...], start: tuple[NewRun, ...] = ()
    ) -> Result[int, StoreFailure]:
        """Store the rows of a group of children, in one transaction; rows stored already are kept.

        How many rows were new. When all were (the group was not stored before), the runs of
        ``start`` are queued in the same transaction (the children that start at once).
        """

        def work(execute: Execute) -> int:
            return insert_children(execute, children, start)

        parent = children[0].parent if children else ""
        return self._change("add children", work, parent, one_statement=len(children) == 1 and not start)

    def children_of(
        self, parent: str, seq: int | None = None
    ) -> Result[tuple[ChildRecord, ...], StoreFailure]:
        """The children of ``parent`` (of its effect ``seq``, if given), by seq and index."""
        params: tuple[object, ...]
        if seq is None:
            sql, params = f"{_SELECT} WHERE c.parent = ? ORDER BY c.seq, c.idx", (parent,)
        else:
            sql, params = (
                f"{_SELECT} WHERE c.parent = ? AND c.seq = ? ORDER BY c.idx",
                (parent, comparable(seq)),
            )
        return self._query("read children", sql, params, _records, parent)

    def child(self, run_id: str) -> Result[ChildRecord | None, StoreFailure]:
        """The child row of run ``run_id``; None if that run is nobody's child."""
        return self._query(
            "read child",
            f"{_SELECT} WHERE c.run_id = ?",
            (run_id,),
            lambda rows: (_records(rows) or (None,))[0],
        )

    def unended(self, parent: str, seq: int) -> Result[int, StoreFailure]:
        """How many children of ``parent``'s effect ``seq`` have no outcome yet (one count on the index)."""
        sql = "SELECT count(*) FROM children WHERE parent = ? AND seq = ? AND outcome IS NULL"
        return self._query(
            "count unended children", sql, (parent, comparable(seq)), lambda rows: int(str(rows[0][0]))
        )

    def first_unstarted(
        self, parent: str, seq: int, after: int = -1
    ) -> Result[ChildRecord | None, StoreFailure]:
        """The lowest-index child of ``parent``'s effect ``seq`` above ``after``: no run, no outcome."""
        return self._query(
            "read the first unstarted child",
            f"{_SELECT} WHERE c.parent = ? AND c.seq = ? AND c.idx > ? AND c.outcome IS NULL "
            "AND r.id IS NULL ORDER BY c.idx LIMIT 1",
            (parent, comparable(seq), comparable(after)),
            lambda rows: (_records(rows) or (None,))[0],
        )

    def end_child(
        self, run_id: str, outcome: bytes, answer: tuple[str, int, float] | None = None
    ) -> Result[bool, StoreFailure]:
        """Store the child's outcome unless it has one (one conditional write); whether this wrote it.

        ``answer`` (parent, seq, when): the outcome also answers that waiting effect, in the same
        transaction (the one child of a ``ChildRun``).
        """

        def work(execute: Execute) -> bool:
            sql = "UPDATE children SET outcome = ? WHERE run_id = ? AND outcome IS NULL"
            wrote = execute(sql, (outcome, run_id)).rowcount > 0
            if wrote and answer is not None:
                answering(execute, answer[0], answer[1], outcome, answer[2])
            return wrote

        return self._change("end child", work, run_id, one_statement=answer is None)

    def cancel_run(self, run_id: str, at: float) -> Result[bool, StoreFailure]:
        """Mark an unfinished run CANCELLED and let go of it (its owner's next write is refused)."""

        def work(execute: Execute) -> bool:
            sql = (
                "UPDATE runs SET status = 'cancelled', owner = '', lease_until = 0, updated = ?, "
                "reason = 'cancelled' WHERE id = ? AND status NOT IN ('finished', 'cancelled')"
            )
            return execute(sql, (at, run_id)).rowcount > 0

        return self._change("cancel run", work, run_id, one_statement=True)
