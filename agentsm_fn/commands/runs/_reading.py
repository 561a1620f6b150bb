"""The ``agentsm-runs`` commands that replay: ``show``, ``export``, ``replay``, ``record``; and ``rerecord``.

The first four read a stored run by replaying its journal (nothing is performed). ``record``
writes it as a recording (:mod:`agentsm_fn.regression`: one JSON file, a regression case the
pytest plugin replays against the current code). ``rerecord`` runs a recording's start again
through the live Durable it names (or ``--machine``) and writes the new recording, over the old
one unless ``--out`` says where; it needs no store.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from returns.result import Failure

from agentsm_fn.commands.runs._support import Exit, Unloaded, exit_for, export_run, load_target
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable import Durable, DurableError, RunRecord, RunStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.inspector.plain import plain
from agentsm_fn.regression import (
    Divergence,
    Recording,
    RecordingInvalid,
    RegressionError,
    TargetUnusable,
    load_recording,
    record_stored,
    recording_to_json,
    rerecord,
    write_recording,
)

__all__: list[str] = []

Fail = Callable[[DurableError | str, Exit | None], int]


def _said(recording: Recording) -> str:
    end = recording.end
    steps = end.steps - recording.start_steps
    return f"{steps} steps, {len(recording.effects)} effects, {end.status} in {end.state}"


def _exit(error: RegressionError) -> Exit:
    if isinstance(error, RecordingInvalid):
        return Exit.STORE
    if isinstance(error, TargetUnusable):
        return Exit.NOT_FOUND
    if isinstance(error, Divergence):
        return Exit.RUN_FAILED
    return exit_for(error)


def replaying(
    store: RunStore,
    record: RunRecord,
    machine: Machine[Any, Any, Any],
    args: argparse.Namespace,
    fail: Fail,
    durable: Durable[Any, Any, Any] | None = None,
) -> int:
    """``show``, ``export``, ``replay`` or ``record`` the stored run (``show``: and ``durable``'s result)."""
    command, step = args.command, getattr(args, "step", None)
    if command == "record":
        return recorded(store, record, machine, args, fail)
    if command == "export":
        exported, error = export_run(store, record, machine)
        print(json.dumps(exported, indent=2, default=str))  # what could be read, even if not all of it
        return int(Exit.OK) if error is None else fail(error, None)
    replayed = replay_stored(store, machine, record.run_id, step)
    if isinstance(replayed, Failure):
        return fail(replayed.failure(), None)
    snap = replayed.unwrap()
    if command == "show":
        print(snap.trace.render(width=140))
        result = None if durable is None or step is not None else durable.result_of(snap)
        if result is not None:  # a finished run's result, e.g. an agent's typed value, as JSON
            print(f"result {type(result).__name__} {json.dumps(plain(result), ensure_ascii=False)}")
    else:
        short = ""
        if step is not None and step > snap.steps:
            short = f" (there is no step {step}: the stored run reaches step {snap.steps})"
        print(f"state {snap.state.name} ({snap.status.value}) after {snap.steps} steps{short}")
        print(f"memory {snap.memory!r}")
    return int(Exit.OK)


def recorded(
    store: RunStore, record: RunRecord, machine: Machine[Any, Any, Any], args: argparse.Namespace, fail: Fail
) -> int:
    """Write the stored run as a recording: to ``--out``, or to standard output."""
    made = record_stored(store, machine, record.run_id, requests=not args.no_requests, name=args.machine)
    if isinstance(made, Failure):
        return fail(made.failure(), None)
    recording = made.unwrap()
    if args.out is None:
        sys.stdout.write(recording_to_json(recording))
        return int(Exit.OK)
    written = write_recording(args.out, recording)
    if isinstance(written, Failure):
        return fail(written.failure().describe(), Exit.USAGE)
    print(f"{args.out}: run {record.run_id} recorded ({_said(recording)})")
    return int(Exit.OK)


def rerecorded(args: argparse.Namespace, fail: Fail) -> int:
    """Run the recording in ``args.file`` again through its live Durable and write the new recording."""
    loaded = load_recording(args.file)
    if isinstance(loaded, Failure):
        return fail(loaded.failure().describe(), Exit.STORE)
    old = loaded.unwrap()
    name = args.machine or old.machine
    found = load_target(name)
    if isinstance(found, Unloaded):
        return fail(found.why, found.code)
    if not isinstance(found, Durable):
        why = f"{name} is a Machine; re-recording runs it, and needs the Durable that performs its effects"
        return fail(why, Exit.NOT_FOUND)
    made = rerecord(old, found, requests=not args.no_requests, source=args.file)
    if isinstance(made, Failure):
        error = made.failure()
        return fail(error.describe(), _exit(error))
    out = args.out or args.file
    written = write_recording(out, made.unwrap())
    if isinstance(written, Failure):
        return fail(written.failure().describe(), Exit.USAGE)
    print(f"{out}: re-recorded against {found.name} ({_said(made.unwrap())})")
    return int(Exit.OK)
