"""The thread tables, and their rows as records (see :mod:`agentsm_fn.durable.stores.sql.threads`).

:func:`thread_schema` creates the tables in a database's column types; the rest reads rows
(``THREADS`` and ``TURNS`` select them, with where each turn's run stands) into records,
and writes a turn's row.
"""

from __future__ import annotations

from agentsm_fn.durable.stores.protocol.store import RunStatus
from agentsm_fn.durable.stores.protocol.threads import NewTurn, ThreadRecord, TurnRecord, TurnStatus
from agentsm_fn.durable.stores.sql.reads import Rows
from agentsm_fn.durable.stores.sql.rows import CorruptColumn
from agentsm_fn.durable.stores.sql.writes import Execute
from agentsm_fn.durable.thread_errors import ThreadBusy, ThreadNotFound

__all__ = [
    "MOST",
    "ONLY_HERE",
    "THREADS",
    "TURNS",
    "busy",
    "insert_turn",
    "thread_schema",
    "threads_from",
    "turns_from",
]

MOST = 2**63 - 1
"""The largest LIMIT both databases take."""


def thread_schema(text: str, real: str, integer: str, blob: str) -> tuple[str, ...]:
    """The statements that create the thread tables (idempotent), in a database's column types.

    Example:
        >>> thread_schema("TEXT", "REAL", "INTEGER", "BLOB")[0].split("(")[0].strip()
        'CREATE TABLE IF NOT EXISTS threads'
    """
    return (
        f"""CREATE TABLE IF NOT EXISTS threads (
            id {text} PRIMARY KEY,
            machine {text} NOT NULL,
            created {real} NOT NULL,
            updated {real} NOT NULL,
            turns {integer} NOT NULL DEFAULT 0,
            title {text} NOT NULL DEFAULT '',
            parent {text} NOT NULL DEFAULT '',
            parent_turn {integer} NOT NULL DEFAULT -1
        )""",
        "CREATE INDEX IF NOT EXISTS threads_by_created ON threads (created DESC, id)",
        "CREATE INDEX IF NOT EXISTS threads_by_machine_created ON threads (machine, created DESC, id)",
        "CREATE INDEX IF NOT EXISTS threads_by_parent ON threads (parent, created DESC, id)",
        f"""CREATE TABLE IF NOT EXISTS thread_turns (
            thread_id {text} NOT NULL,
            turn {integer} NOT NULL,
            run_id {text} NOT NULL,
            message {text} NOT NULL,
            created {real} NOT NULL,
            so_far {blob},
            PRIMARY KEY (thread_id, turn)
        )""",
        "CREATE INDEX IF NOT EXISTS thread_turns_by_run ON thread_turns (run_id)",
        f"""CREATE TABLE IF NOT EXISTS turn_holders (
            run_id {text} PRIMARY KEY,
            holder {text} NOT NULL
        )""",
    )


_TURN = (
    "u.thread_id, u.turn, u.run_id, u.message, u.created, r.status, u.so_far IS NOT NULL, "
    "COALESCE(h.holder, r.machine, '')"
)
_THREAD = f"t.id, t.machine, t.created, t.updated, t.turns, t.title, t.parent, t.parent_turn, {_TURN}"
_HOLDER = "LEFT JOIN runs r ON r.id = u.run_id LEFT JOIN turn_holders h ON h.run_id = u.run_id"
THREADS = (
    f"SELECT {_THREAD} FROM threads t "
    f"LEFT JOIN thread_turns u ON u.thread_id = t.id AND u.turn = t.turns - 1 {_HOLDER}"
)
TURNS = f"SELECT {_TURN} FROM thread_turns u {_HOLDER}"

ONLY_HERE = (
    "SELECT u.run_id FROM thread_turns u WHERE u.thread_id = ? AND NOT EXISTS "
    "(SELECT 1 FROM thread_turns o WHERE o.run_id = u.run_id AND o.thread_id <> u.thread_id)"
)
"""The runs of a thread's turns that no other thread's turns name (those a delete removes)."""


def _status(value: object) -> TurnStatus:
    if value is None:
        return TurnStatus.QUEUED
    try:
        return TurnStatus.of(RunStatus(value))
    except ValueError:
        raise CorruptColumn(f"runs.status: corrupt: {value!r} is not a run status") from None


def _turn(row: tuple[object, ...]) -> TurnRecord:
    thread_id, turn, run_id, message, created, status, kept, holder = row
    return TurnRecord(
        thread_id=str(thread_id),
        turn=int(turn),  # type: ignore[call-overload]  # an INTEGER column
        run_id=str(run_id),
        message=str(message),
        created=float(created),  # type: ignore[arg-type]  # a REAL column
        status=_status(status),
        so_far_kept=bool(kept),
        holder=str(holder),
    )


def _thread(row: tuple[object, ...]) -> ThreadRecord:
    thread_id, machine, created, updated, turns, title, parent, parent_turn = row[:8]
    return ThreadRecord(
        thread_id=str(thread_id),
        machine=str(machine),
        created=float(created),  # type: ignore[arg-type]  # a REAL column
        updated=float(updated),  # type: ignore[arg-type]  # a REAL column
        turns=int(turns),  # type: ignore[call-overload]  # an INTEGER column
        title=str(title),
        parent=str(parent),
        parent_turn=int(parent_turn),  # type: ignore[call-overload]  # an INTEGER column
        last=None if row[8] is None else _turn(row[8:]),
    )


def threads_from(rows: Rows) -> tuple[ThreadRecord, ...]:
    """The threads :data:`THREADS` selected (a corrupt column raises :class:`CorruptColumn`)."""
    return tuple(map(_thread, rows))


def turns_from(rows: Rows) -> tuple[TurnRecord, ...]:
    """The turns :data:`TURNS` selected (a corrupt column raises :class:`CorruptColumn`)."""
    return tuple(map(_turn, rows))


def insert_turn(execute: Execute, turn: NewTurn) -> None:
    """Write ``turn``'s row (its thread so far comes when it ends)."""
    execute(
        "INSERT INTO thread_turns(thread_id, turn, run_id, message, created) VALUES (?, ?, ?, ?, ?)",
        (turn.thread_id, turn.turn, turn.run_id, turn.message, turn.created),
    )


def busy(execute: Execute, thread_id: str) -> ThreadBusy | ThreadNotFound:
    """Why a turn was not taken: the thread's last turn holds the place, or there is no thread."""
    found = execute("SELECT turns FROM threads WHERE id = ?", (thread_id,)).fetchone()
    if found is None:
        return ThreadNotFound(thread_id=thread_id)
    last = int(found[0]) - 1  # type: ignore[call-overload]  # an INTEGER column
    row = execute(
        "SELECT u.run_id, r.status FROM thread_turns u LEFT JOIN runs r ON r.id = u.run_id "
        "WHERE u.thread_id = ? AND u.turn = ?",
        (thread_id, last),
    ).fetchone()
    run_id, status = (str(row[0]), _status(row[1])) if row is not None else ("", TurnStatus.QUEUED)
    return ThreadBusy(thread_id=thread_id, turn=last, run_id=run_id, status=status.value)
