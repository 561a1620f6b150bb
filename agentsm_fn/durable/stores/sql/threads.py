"""Threads in SQL both SQLite and PostgreSQL run alike (``?`` marks a parameter): reads and writes.

The thread store (:mod:`agentsm_fn.durable.stores.protocol.threads`) is the same statements on
both databases, over a store's ``_query`` and ``_change`` (:mod:`agentsm_fn.durable.stores.sql.reads`,
:mod:`agentsm_fn.durable.stores.sql.writes`); only the column types of its tables differ
(:mod:`agentsm_fn.durable.stores.sql.thread_rows`). Every write that touches a thread first
writes its row (the turn count, or an update of nothing), so on PostgreSQL it holds the
thread's row lock until it commits: taking a turn, forking and deleting one thread never
interleave.
"""

from __future__ import annotations

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.store import NewRun
from agentsm_fn.durable.stores.protocol.threads import (
    NewThread,
    NewTurn,
    ThreadQuery,
    ThreadRecord,
    TurnRecord,
)
from agentsm_fn.durable.stores.sql.reads import Rows
from agentsm_fn.durable.stores.sql.rows import new_run_values
from agentsm_fn.durable.stores.sql.thread_rows import (
    MOST,
    ONLY_HERE,
    THREADS,
    TURNS,
    busy,
    insert_turn,
    thread_schema,
    threads_from,
    turns_from,
)
from agentsm_fn.durable.stores.sql.writes import INSERT_RUN, Execute, StoreWrites
from agentsm_fn.durable.thread_errors import ThreadBusy, ThreadExists, ThreadNotFound

__all__ = ["StoreThreads", "thread_schema"]


class StoreThreads(StoreWrites):
    """Both databases' thread store (:class:`~agentsm_fn.durable.stores.protocol.threads.ThreadStore`)."""

    def create_thread(self, thread: NewThread) -> Result[None, ThreadExists | StoreFailure]:
        """Store a new thread with no turns; a thread of that id already stored is ``ThreadExists``."""

        def work(execute: Execute) -> int:
            return execute(
                "INSERT INTO threads(id, machine, created, updated, title, parent, parent_turn) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (
                    thread.thread_id,
                    thread.machine,
                    thread.created,
                    thread.created,
                    thread.title,
                    thread.parent,
                    thread.parent_turn,
                ),
            ).rowcount

        made = self._change("create thread", work, one_statement=True)
        if isinstance(made, Failure):
            return made
        return Success(None) if made.unwrap() else Failure(ThreadExists(thread_id=thread.thread_id))

    def thread(self, thread_id: str) -> Result[ThreadRecord, ThreadNotFound | StoreFailure]:
        """The thread's record, with its last turn and where that turn stands (one query)."""
        found = self._query(
            "read thread", f"{THREADS} WHERE t.id = ?", (thread_id,), lambda rows: threads_from(rows)[:1]
        )
        if isinstance(found, Failure):
            return found
        records = found.unwrap()
        return Success(records[0]) if records else Failure(ThreadNotFound(thread_id=thread_id))

    def threads(self, query: ThreadQuery) -> Result[tuple[ThreadRecord, ...], StoreFailure]:
        """One page of threads, newest first (then by id): one query on the ``(created, id)`` index."""
        where: list[str] = []
        args: list[object] = []
        if query.machine is not None:
            where.append("t.machine = ?")
            args.append(query.machine)
        if query.parent is not None:
            where.append("t.parent = ?")
            args.append(query.parent)
        if query.after is not None:
            where.append("(t.created < ? OR (t.created = ? AND t.id > ?))")
            args.extend((query.after[0], query.after[0], query.after[1]))
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        sql = f"{THREADS} {clause} ORDER BY t.created DESC, t.id LIMIT ?"
        limit = max(0, min(query.limit, MOST))
        return self._query("list threads", sql, (*args, limit), threads_from)

    def turns(
        self, thread_id: str, start: int = 0, limit: int | None = None
    ) -> Result[tuple[TurnRecord, ...], StoreFailure]:
        """The thread's turns from number ``start`` on (at most ``limit``), in order."""
        sql = f"{TURNS} WHERE u.thread_id = ? AND u.turn >= ? ORDER BY u.turn LIMIT ?"
        most = MOST if limit is None else max(0, min(limit, MOST))
        return self._query("read turns", sql, (thread_id, start, most), turns_from)

    def turns_of_run(self, run_id: str) -> Result[tuple[TurnRecord, ...], StoreFailure]:
        """The turns whose run is ``run_id``, by thread id (a fork's copies name the same run)."""
        sql = f"{TURNS} WHERE u.run_id = ? ORDER BY u.thread_id"
        return self._query("read turns of run", sql, (run_id,), turns_from, run_id)

    def take_turn(
        self, turn: NewTurn, run: NewRun | None
    ) -> Result[None, ThreadBusy | ThreadNotFound | StoreFailure]:
        """Take turn ``turn.turn`` if it is the thread's next (one conditional write), with its run."""

        def work(execute: Execute) -> ThreadBusy | ThreadNotFound | None:
            moved = execute(
                "UPDATE threads SET turns = turns + 1, updated = ? WHERE id = ? AND turns = ?",
                (turn.created, turn.thread_id, turn.turn),
            ).rowcount
            if not moved:
                return busy(execute, turn.thread_id)
            insert_turn(execute, turn)
            if run is not None:
                execute(INSERT_RUN, new_run_values(run))
            return None

        taken = self._change("take turn", work, turn.run_id)
        if isinstance(taken, Failure):
            return taken
        refused = taken.unwrap()
        return Success(None) if refused is None else Failure(refused)

    def start_queued(self, thread_id: str, turn: int, run: NewRun) -> Result[bool, StoreFailure]:
        """Store the run of queued turn ``turn`` (its id is the turn's); False if it was stored already."""

        def work(execute: Execute) -> bool:
            named = execute(
                "SELECT 1 FROM thread_turns WHERE thread_id = ? AND turn = ? AND run_id = ?",
                (thread_id, turn, run.run_id),
            ).fetchone()
            if named is None:
                return False
            return bool(execute(f"{INSERT_RUN} ON CONFLICT (id) DO NOTHING", new_run_values(run)).rowcount)

        return self._change("start queued turn", work, run.run_id)

    def so_far(self, thread_id: str, turn: int) -> Result[bytes | None, StoreFailure]:
        """The encoded thread so far after turn ``turn`` (None: not kept yet, or no such turn)."""

        def build(rows: Rows) -> bytes | None:
            return None if not rows or rows[0][0] is None else bytes(rows[0][0])  # type: ignore[call-overload]  # a BLOB column

        sql = "SELECT so_far FROM thread_turns WHERE thread_id = ? AND turn = ?"
        return self._query("read thread so far", sql, (thread_id, turn), build)

    def keep_so_far(self, run_id: str, so_far: bytes, holder: str = "") -> Result[None, StoreFailure]:
        """Keep the thread so far after the turn whose run is ``run_id`` and its holder (first kept stays)."""

        def work(execute: Execute) -> None:
            sql = "UPDATE thread_turns SET so_far = ? WHERE run_id = ? AND so_far IS NULL"
            execute(sql, (so_far, run_id))
            if holder:
                named = "INSERT INTO turn_holders(run_id, holder) VALUES (?, ?) "
                execute(named + "ON CONFLICT (run_id) DO NOTHING", (run_id, holder))

        return self._change("keep thread so far", work, run_id, one_statement=not holder)

    def fork_thread(
        self, thread: NewThread, turn: NewTurn, run: NewRun
    ) -> Result[None, ThreadExists | StoreFailure]:
        """Store ``thread`` forked from ``thread.parent`` at ``thread.parent_turn``, in one transaction."""

        def work(execute: Execute) -> ThreadExists | None:
            execute("UPDATE threads SET updated = updated WHERE id = ?", (thread.parent,))  # hold the parent
            made = execute(
                "INSERT INTO threads(id, machine, created, updated, turns, title, parent, parent_turn) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (
                    thread.thread_id,
                    thread.machine,
                    thread.created,
                    thread.created,
                    thread.parent_turn + 1,
                    thread.title,
                    thread.parent,
                    thread.parent_turn,
                ),
            ).rowcount
            if not made:
                return ThreadExists(thread_id=thread.thread_id)
            execute(
                "INSERT INTO thread_turns(thread_id, turn, run_id, message, created, so_far) "
                "SELECT ?, turn, run_id, message, created, so_far FROM thread_turns "
                "WHERE thread_id = ? AND turn < ?",
                (thread.thread_id, thread.parent, thread.parent_turn),
            )
            insert_turn(execute, turn)
            execute(INSERT_RUN, new_run_values(run))
            return None

        forked = self._change("fork thread", work, run.run_id)
        if isinstance(forked, Failure):
            return forked
        refused = forked.unwrap()
        return Success(None) if refused is None else Failure(refused)

    def delete_thread(self, thread_id: str) -> Result[tuple[str, ...], ThreadNotFound | StoreFailure]:
        """Delete the thread, its turns and the runs no other thread names (journals too): one transaction."""

        def work(execute: Execute) -> tuple[str, ...] | None:
            if not execute("UPDATE threads SET updated = updated WHERE id = ?", (thread_id,)).rowcount:
                return None
            doomed = tuple(str(row[0]) for row in _fetch_all(execute, ONLY_HERE, (thread_id,)))
            for table, column in (
                ("turn_holders", "run_id"),
                ("journal", "run_id"),
                ("checkpoints", "run_id"),
                ("trace_contexts", "run_id"),
            ):
                execute(f"DELETE FROM {table} WHERE {column} IN ({ONLY_HERE})", (thread_id,))
            execute(f"DELETE FROM runs WHERE id IN ({ONLY_HERE})", (thread_id,))
            execute("DELETE FROM thread_turns WHERE thread_id = ?", (thread_id,))
            execute("DELETE FROM threads WHERE id = ?", (thread_id,))
            return doomed

        deleted = self._change("delete thread", work)
        if isinstance(deleted, Failure):
            return deleted
        runs = deleted.unwrap()
        return Failure(ThreadNotFound(thread_id=thread_id)) if runs is None else Success(runs)


def _fetch_all(execute: Execute, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
    cursor = execute(sql, params)
    rows: list[tuple[object, ...]] = []
    while (row := cursor.fetchone()) is not None:
        rows.append(row)
    return rows
