"""``agentsm-runs``: the command line for stored runs.

    agentsm-runs [--db DB] init                            create an empty store (idempotent)
    agentsm-runs [--db DB] list [--all]
    agentsm-runs [--db DB] show RUN [--machine M]          the trace, as a table
    agentsm-runs [--db DB] export RUN [--machine M]        the run as JSON
    agentsm-runs [--db DB] record RUN [--out FILE]         the run as a recording (a regression case)
    agentsm-runs rerecord FILE [--machine M] [--out FILE]  a recording run again live (no store)
    agentsm-runs [--db DB] replay RUN [--step N]           memory at a step (no effect performed)
    agentsm-runs [--db DB] resume RUN [--allow-changed] [--watch]
    agentsm-runs [--db DB] approve RUN SEQ [--resume [--watch]]
    agentsm-runs [--db DB] reject RUN SEQ [--reason TEXT] [--resume]
    agentsm-runs [--db DB] fork RUN STEP [--set FIELD=JSON ...]
    agentsm-runs [--db DB] check MACHINE [--name NAME]
    agentsm-runs [--db DB] recover MACHINE... [--watch]
    agentsm-runs [--db DB] worker MACHINE... [--concurrency N] [--poll S] [--grace S]
    agentsm-runs [--db DB] serve [--host H] [--port P] [--token T] [--agui] MACHINE...   HTTP (server extra)
    agentsm-runs [--db DB] thread list|show|messages|send|fork|delete ...   threads (see _threads)

Machines are named ``module:attribute`` (a ``Durable``, or a ``Machine`` for the commands
that only replay); a run remembers the name it was started under. ``--db`` is a SQLite file
or a ``postgresql://`` connection string (its password is never printed); it defaults to
``$AGENTSM_RUNS_DB`` or ``runs.db``; only ``init`` creates a store (every other command refuses
a store that does not exist, exit 5, and names the ``init`` to run). Exit codes (each means
one thing): 0 done; 1 ``check`` found a run that would diverge; 2 bad usage; 3 no such run or
machine; 4 refused (answered already, wrong answer, not resumable, machine changed, run busy);
5 the store or stored data failed; 6 the run went on and failed, or diverged.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from returns.result import Failure, Result, Success

from agentsm_fn.commands.runs._init import hint, init
from agentsm_fn.commands.runs._parser import parser, store_name
from agentsm_fn.commands.runs._reading import replaying, rerecorded
from agentsm_fn.commands.runs._support import (
    BadField,
    Exit,
    Unloaded,
    changed,
    exit_for,
    load_target,
    memory_changes,
    table,
    watching,
)
from agentsm_fn.commands.runs._threads import thread_command
from agentsm_fn.commands.runs._worker import run_worker
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable import Durable, DurableError, RunRecord, RunStore, StoredRun, open_store
from agentsm_fn.durable.operations.answers import answer, answer_for, pending
from agentsm_fn.durable.operations.cancel import cancel
from agentsm_fn.durable.operations.check import check_runs
from agentsm_fn.durable.operations.forks import fork
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.operations.worker import WorkerSettings
from agentsm_fn.durable.stores.protocol.queue import RunQueue

__all__: list[str] = []  # the entry point `main` is not re-exported: verification.cli has a main too


def _fail(error: DurableError | str, code: Exit | None = None) -> int:
    text = error if isinstance(error, str) else error.describe()
    print(f"agentsm-runs: {text}", file=sys.stderr)
    return int(code if code is not None else exit_for(error))  # type: ignore[arg-type]  # a str comes with a code


def _target(store: RunStore, run_id: str, override: str | None) -> tuple[RunRecord, Any] | int:
    record = store.get(run_id)
    if isinstance(record, Failure):
        return _fail(record.failure())
    found = load_target(override or record.unwrap().machine)
    if isinstance(found, Unloaded):
        return _fail(found.why, found.code)
    return record.unwrap(), found


def _machine(target: Durable[Any, Any, Any] | Machine[Any, Any, Any]) -> Machine[Any, Any, Any]:
    return target.machine if isinstance(target, Durable) else target


def _durable(target: object, name: str) -> Durable[Any, Any, Any] | int:
    if isinstance(target, Durable):
        return target
    return _fail(
        f"{name} is a Machine; running needs the Durable that says how to perform its effects", Exit.NOT_FOUND
    )


def _report(result: Result[StoredRun[Any, Any], DurableError]) -> int:
    if isinstance(result, Failure):
        return _fail(result.failure())
    stored = result.unwrap()
    snap = stored.snapshot
    where = "finished" if snap.finished else f"waits in {snap.state.name} for {snap.pending!r}"[:200]
    print(f"{stored.run_id}: {where} after {snap.steps} steps")
    return int(Exit.OK)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentsm-runs`` with ``argv``; return its exit code.

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.durable import SqliteStore
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.db")
        >>> SqliteStore.open(path).unwrap().close()
        >>> main(["--db", path, "list"])  # doctest: +ELLIPSIS
        run ... status ... machine ... age
        0
    """
    args = parser().parse_args(argv)
    db = store_name(args)
    if args.command in ("init", "rerecord"):
        return init(db, _fail) if args.command == "init" else rerecorded(args, _fail)
    opened = open_store(db, create=False)  # never create an empty store by reading a mistyped path
    if isinstance(opened, Failure):
        return _fail(
            f"{opened.failure().describe()}{hint(db, args.db is not None, opened.failure())}", Exit.STORE
        )
    store = opened.unwrap()
    try:
        return _dispatch(store, args)
    except BrokenPipeError:  # `agentsm-runs export RUN | head`: the reader stopped reading, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush is quiet
        return int(Exit.OK)
    finally:
        store.close()


def _dispatch(store: RunStore, args: argparse.Namespace) -> int:
    command = args.command
    if command == "list":
        records = store.runs(unfinished_only=not args.all)
        if isinstance(records, Failure):
            return _fail(records.failure())
        print(table(records.unwrap()))
        return int(Exit.OK)
    if command == "pending":
        waiting = pending(store)
        if isinstance(waiting, Failure):
            return _fail(waiting.failure())
        for item in waiting.unwrap():
            print(f"{item.run_id} {item.seq} {item.summary}")
        return int(Exit.OK)
    if command == "cancel":
        cancelled = cancel(store, args.run)
        if isinstance(cancelled, Failure):
            return _fail(cancelled.failure())
        print("\n".join(f"cancelled {run_id}" for run_id in cancelled.unwrap()) or f"{args.run} had ended")
        return int(Exit.OK)
    if command == "check":
        return _check(store, args.machine, args.name)
    if command == "recover":
        return _recover(store, args.machines, args.watch)
    if command == "worker":
        if not isinstance(store, RunQueue):
            return _fail("this store keeps no queue of runs for workers", Exit.USAGE)
        durables = _durables(args.machines, args.watch)
        settings = WorkerSettings(concurrency=args.concurrency, poll=args.poll, grace=args.grace)
        return durables if isinstance(durables, int) else run_worker(store, durables, settings, _report)
    if command == "serve":
        return _serve(store, args)
    if command == "thread":
        return thread_command(store, args, _fail)
    found = _target(store, args.run, getattr(args, "machine", None))
    if isinstance(found, int):
        return found
    record, target = found
    if command in ("show", "export", "replay", "record"):
        shown = target if isinstance(target, Durable) else None  # its result, if it names one
        return replaying(store, record, _machine(target), args, _fail, shown)
    durable = _durable(target, getattr(args, "machine", None) or record.machine)
    if isinstance(durable, int):
        return durable
    if getattr(args, "watch", False):
        watched = watching(durable)
        if isinstance(watched, str):
            return _fail(watched, Exit.USAGE)
        durable = watched
    if command == "resume":
        return _report(durable.resume(store, record.run_id, allow_changed=args.allow_changed))
    if command in ("approve", "reject"):
        return _answer(store, durable, args)
    values = memory_changes(args.set)
    if isinstance(values, str):
        return _fail(values, Exit.USAGE)
    try:
        forked = fork(store, durable.machine, record.run_id, args.step, durable, lambda m: changed(m, values))
    except BadField as exc:
        return _fail(str(exc), Exit.USAGE)
    return _report(forked)


def _answer(store: RunStore, durable: Durable[Any, Any, Any], args: argparse.Namespace) -> int:
    waiting = {(p.run_id, p.seq): p for p in pending(store).value_or(())}
    item = waiting.get((args.run, args.seq))
    outcome = answer_for(
        item.effect if item else None, args.command == "approve", getattr(args, "reason", "")
    )
    if outcome is None:
        return _fail(
            f"{item.summary if item else 'that effect'} accepts neither approval nor rejection", Exit.REFUSED
        )
    done = answer(store, args.run, args.seq, outcome)
    if isinstance(done, Failure):
        return _fail(done.failure())
    print(f"{args.run}: entry {args.seq} {'approved' if args.command == 'approve' else 'rejected'}")
    return _report(durable.resume(store, args.run)) if args.resume else int(Exit.OK)


def _check(store: RunStore, name: str, stored_as: str | None) -> int:
    target = load_target(name)
    if isinstance(target, Unloaded):
        return _fail(target.why, target.code)
    # Runs are stored under their Durable's name, which need not be the attribute's spelling
    # (a changed version of a Durable keeps the name of the one it replaces).
    runs_of = stored_as or (target.name if isinstance(target, Durable) else name)
    # A Durable names its result: its finished runs are checked too (does each result still read?).
    checked = check_runs(
        store, _machine(target), runs_of, target.result if isinstance(target, Durable) else None
    )
    if isinstance(checked, Failure):
        return _fail(checked.failure())
    results = checked.unwrap()
    for result in results:
        print(result.describe())
    unreadable = sum(r.unreadable for r in results)
    changed = sum(r.result_changed for r in results)
    bad = sum(not r.ok for r in results) - unreadable - changed
    finished = sum(r.status == "finished" for r in results)
    counts = f"{len(results) - finished} unfinished run(s) of {runs_of}, {bad} would diverge"
    ended = f"; {finished} finished, {changed} whose result no longer reads" if finished else ""
    unread = f", {unreadable} could not be read" if unreadable else ""
    print(f"agentsm-runs check {name}: {counts}{ended}{unread}")
    if not results:
        others = sorted({r.machine for r in store.runs(unfinished_only=True).value_or(())})
        if others:
            print(f"  unfinished runs are stored under: {', '.join(others)} (choose one with --name)")
    return int(Exit.STORE if unreadable else Exit.DIVERGES if bad or changed else Exit.OK)


def _durables(names: Sequence[str], watch: bool) -> list[Durable[Any, Any, Any]] | int:
    durables: list[Durable[Any, Any, Any]] = []
    for name in names:
        target = load_target(name)
        durable = _fail(target.why, target.code) if isinstance(target, Unloaded) else _durable(target, name)
        if isinstance(durable, int):
            return durable
        watched = watching(durable) if watch else durable
        if isinstance(watched, str):
            return _fail(watched, Exit.USAGE)
        durables.append(watched)
    return durables


def _recover(store: RunStore, names: Sequence[str], watch: bool) -> int:
    durables = _durables(names, watch)
    if isinstance(durables, int):
        return durables
    recovered = recover(store, durables)
    if isinstance(recovered, Failure):
        return _fail(recovered.failure())
    worst = Exit.OK
    for item in recovered.unwrap():
        code = _report(item.result)
        worst = max(worst, Exit(code))
    print(f"agentsm-runs recover: {len(recovered.unwrap())} run(s) taken up")
    return int(worst)


def _serve(store: RunStore, args: argparse.Namespace) -> int:
    try:
        from agentsm_fn.server.agui import with_agui  # noqa: PLC0415 - the server extra is optional
        from agentsm_fn.server.app import ROUTERS  # noqa: PLC0415 - as above
        from agentsm_fn.server.serve import serve_runs, token_from  # noqa: PLC0415 - as above
    except ImportError:
        return _fail("serve needs the server extra: pip install 'agentsm-fn[server]'", Exit.USAGE)
    durables = _durables(args.machines, watch=False)
    if isinstance(durables, int):
        return durables
    served = with_agui(durables) if args.agui else Success(ROUTERS)
    if isinstance(served, Failure):
        return _fail(f"serve --agui: {served.failure()}", Exit.USAGE)
    token = token_from(args.token)
    return serve_runs(store, durables, host=args.host, port=args.port, token=token, routers=served.unwrap())
