"""What the ``agentsm-runs`` commands share: exit codes, loading machines, answers, printing."""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Sequence
from typing import Any

import attrs
from returns.result import Failure

from agentsm_fn.core.machine import Machine
from agentsm_fn.durable.errors import (
    AnswerRefused,
    CodecFailure,
    DurableError,
    MachineChanged,
    NoSuchStep,
    NotResumable,
    RunBusy,
    RunIdRefused,
    RunNotFound,
    StoreFailure,
)
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.fields import changed_fields
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.running.templates import TemplateMismatch
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.owners import run_orphaned
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore
from agentsm_fn.shell.observers import Both
from agentsm_fn.shell.run import Shell
from agentsm_fn.shell.targets import import_target


class Exit(enum.IntEnum):
    """The exit codes of ``agentsm-runs``: each means one thing."""

    OK = 0
    """Done."""
    DIVERGES = 1
    """``check``: a stored run would diverge under the current machine, or a finished one's result changed."""
    USAGE = 2
    """Bad command line (argparse's own code)."""
    NOT_FOUND = 3
    """No such run, or the machine named cannot be imported."""
    REFUSED = 4
    """Refused: answered already, answer of the wrong type, not resumable, machine changed, run busy."""
    STORE = 5
    """The store or the stored data failed (SQLite error, undecodable value)."""
    RUN_FAILED = 6
    """The run went on and failed, or diverged from its journal."""


def exit_for(error: DurableError) -> Exit:
    """The exit code that reports ``error``.

    Example:
        >>> exit_for(RunNotFound(run_id="r1")).name
        'NOT_FOUND'
    """
    if isinstance(error, RunNotFound | NoSuchStep):
        return Exit.NOT_FOUND
    if isinstance(error, AnswerRefused | NotResumable | MachineChanged | RunBusy):
        return Exit.REFUSED
    if isinstance(error, StoreFailure | CodecFailure):
        return Exit.STORE
    if isinstance(error, RunIdRefused):
        return Exit.USAGE
    return Exit.RUN_FAILED  # Stopped, Diverged


@attrs.frozen
class Unloaded:
    """Why a machine named on the command line cannot be used, and the exit code that reports it."""

    why: str
    code: Exit


def load_target(name: str) -> Durable[Any, Any, Any] | Machine[Any, Any, Any] | Unloaded:
    """The Durable or Machine at ``module:attribute`` (or ``file.py:attribute``), or why it cannot be loaded.

    Found as agentsm-verify finds machines (:func:`~agentsm_fn.shell.targets.import_target`); not
    found is exit 3. A Durable whose template does not fit its machine (refused as its module is
    imported: :class:`~agentsm_fn.durable.running.templates.TemplateMismatch`) is a usage error, exit 2.
    """
    try:
        imported = import_target(name, passing=(TemplateMismatch,))
    except TemplateMismatch as mismatch:
        return Unloaded(str(mismatch), Exit.USAGE)
    if isinstance(imported, Failure):
        return Unloaded(f"cannot load {name}: {imported.failure()}", Exit.NOT_FOUND)
    found = imported.unwrap().value
    if isinstance(found, Durable | Machine):
        return found
    return Unloaded(f"{name} is not a Durable or a Machine (found {type(found).__name__})", Exit.NOT_FOUND)


def age(seconds: float) -> str:
    """A short age: 42s, 7m, 3h, 2d.

    Example:
        >>> age(90), age(7200)
        ('1m', '2h')
    """
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(max(seconds, 0))}s"


def table(records: tuple[RunRecord, ...]) -> str:
    """The ``list`` table; a RUNNING run whose process is gone is marked ``running*``, with a note."""
    now = time.time()
    header = f"{'run':<34} {'status':<9} {'machine':<36} {'state':<16} {'steps':>6} {'effects':>7} {'age':>5}"
    lines = [header]
    orphans = 0
    for r in records:
        status = r.status.value
        if run_orphaned(r.status is RunStatus.RUNNING, r.owner, r.lease_until, now):
            status, orphans = f"{status}*", orphans + 1
        lines.append(
            f"{r.run_id:<34} {status:<9} {r.machine:<36} {r.state:<16} {r.steps:>6} {r.effects:>7} "
            f"{age(now - r.created):>5}"
        )
    if orphans:
        lines.append(
            f"* {orphans} run(s) stopped mid-way: their process is gone or their lease ran out;"
            " `recover MACHINE` (or `resume RUN`) continues them"
        )
    return "\n".join(lines)


WATCH_HELP = "print each transition and effect as it happens (needs the live extra)"


def watching(durable: Durable[Any, Any, Any]) -> Durable[Any, Any, Any] | str:
    """``durable`` whose shells also report to a live view (``--watch``); a message if rich is missing."""
    try:
        from agentsm_fn.live import LiveView  # noqa: PLC0415 - rich is an optional extra
    except ImportError:
        return "--watch needs the live extra: pip install 'agentsm-fn[live]'"
    view = LiveView()
    made = durable.shell

    def shell() -> Shell:
        base = made()
        observer = view if base.observer is None else Both(base.observer, view)
        return attrs.evolve(base, observer=observer)

    return attrs.evolve(durable, shell=shell)


def export_run(
    store: RunStore, record: RunRecord, machine: Machine[Any, Any, Any]
) -> tuple[dict[str, object], DurableError | None]:
    """The run as JSON-ready data (record, journal rows, replayed trace), and the first part that failed.

    What cannot be read is left out (a journal that cannot be read, a trace that cannot be replayed)
    or shown as ``<undecodable>`` (an outcome), and the error says where.
    """
    read = store.journal(record.run_id)
    rows = read.value_or(())
    error: DurableError | None = read.failure() if isinstance(read, Failure) else None
    journal = []
    for row in rows:
        outcome = None if row.outcome is None else from_bytes(row.outcome, object)
        if isinstance(outcome, Failure) and error is None:
            error = outcome.failure().within(record.run_id, f"journal[{row.seq}].outcome")
        journal.append(
            {
                "seq": row.seq,
                "effect": row.summary,
                "digest": row.digest.hex(),
                "ticks": list(row.ticks),
                "at": row.at,
                "waiting": row.waiting,
                "outcome": None if outcome is None else outcome.map(repr).value_or("<undecodable>"),
            }
        )
    replayed = replay_stored(store, machine, record.run_id)
    trace = [
        {
            "step": e.step,
            "at": e.at.isoformat(),
            "state": e.state,
            "event": e.event,
            "target": e.target,
            "data": e.data,
        }
        for e in (replayed.unwrap().trace if not isinstance(replayed, Failure) else ())
    ]
    if isinstance(replayed, Failure) and error is None:
        error = replayed.failure()
    run = {k: (v.value if hasattr(v, "value") else v) for k, v in attrs.asdict(record, recurse=False).items()}
    return {"run": run, "journal": journal, "trace": trace}, error


class BadField(Exception):
    """A ``--set`` that names no field of the memory (raised inside ``fork``'s change, caught by the CLI)."""


def memory_changes(parts: Sequence[str]) -> dict[str, object] | str:
    """The ``--set FIELD=JSON`` options as field values, or why they are not that.

    Example:
        >>> memory_changes(["amount=50", 'note="hi"'])
        {'amount': 50, 'note': 'hi'}
        >>> memory_changes(["amount"])
        "--set needs FIELD=JSON, got 'amount'"
    """
    values: dict[str, object] = {}
    for part in parts:
        field, equals, text = part.partition("=")
        if not field or not equals:
            return f"--set needs FIELD=JSON, got {part!r}"
        try:
            values[field] = json.loads(text)
        except json.JSONDecodeError:
            return f"--set {part}: {text!r} is not JSON (a string is quoted: {field}='\"{text}\"')"
    return values


def changed(memory: Any, values: dict[str, object]) -> Any:
    """``memory`` with the ``--set`` values, or :class:`BadField` naming the field and its type.

    The rules are :mod:`agentsm_fn.durable.running.fields`' (the HTTP server's too): persistent
    vectors and maps are filled from JSON lists and objects.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Order:
        ...     amount: int
        >>> changed(Order(amount=1), {"amount": 5})
        Order(amount=5)
        >>> try:
        ...     changed(Order(amount=1), {"amount": "abc"})
        ... except BadField as exc:
        ...     print(exc)
        --set amount: Expected `int`, got `str` (Order.amount is int)
    """
    made = changed_fields(memory, values)
    if isinstance(made, Failure):
        problem = made.failure()
        raise BadField(f"--set {problem.describe()}" if problem.field else f"--set: {problem.detail}")
    return made.unwrap()
