"""The session a durable run goes on in: new, taken already, or claimed and loaded to resume.

A :class:`~agentsm_fn.durable.running.session.Session` is the journal cursor of one run in one
process. :func:`new_session` makes one for a run not stored yet (stored with its first write);
:func:`taken_session` for a run this process stored already and owns (a thread's turn, a child its
parent just started here: nothing is read back); :func:`resumable_session` claims a stored run
(unless this process took it already) and loads it from its latest checkpoint.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from returns.result import Failure, Result, Success

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.running._loading import Loaded, load_for_resume, release
from agentsm_fn.durable.running._tracing import carry
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.durable.running.session import Session
from agentsm_fn.durable.stores.codec import to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildRecord
from agentsm_fn.durable.stores.protocol.owners import this_owner
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStore
from agentsm_fn.shell.run import Shell

if TYPE_CHECKING:
    from agentsm_fn.durable.running.program import DurableProgram

__all__ = ["new_session", "resumable_session", "taken_session"]


def _session(
    program: DurableProgram[Any, Any, Any], store: RunStore, run_id: str, shell: Shell, owner: str, size: int
) -> Session:
    session = Session(
        run_id=run_id,
        store=store,
        owner=owner,
        clock=shell.clock,
        rows=(),
        tail=(),
        first_seq=0,
        skip_first_ticks=False,
        checkpoint_after=program.checkpoint_after,
        checkpoint_bytes=size,
    )
    carry(session, shell)
    return session


def new_session(
    program: DurableProgram[Any, Any, Any],
    store: RunStore,
    start: Snapshot[Any, Any] | None,
    memory: object,
    run_id: str | None,
    parent: tuple[str, int] = ("", -1),
) -> Result[tuple[Session, Shell], DurableError]:
    """The session of a new run from ``memory`` (or a fork's READY ``start``), stored with its first write."""
    refused = None if run_id is None else refused_run_id(run_id)
    if refused is not None:  # checked before anything is stored, for every door that makes a run
        return Failure(refused)
    shell = program.shell()
    encoded = to_bytes(memory)
    if isinstance(encoded, Failure):
        return Failure(encoded.failure().within(run_id or "(new)", "memory"))
    run_id = run_id or uuid.uuid4().hex
    now, owner = (program.clock or shell.clock)(), this_owner()
    session = _session(program, store, run_id, shell, owner, len(encoded.unwrap()))
    session.create = NewRun(
        run_id=run_id,
        machine=program.name,
        fingerprint=program.fingerprint,
        memory=encoded.unwrap(),
        created=now,
        owner=owner,
        lease_until=now + program.lease,
        parent=parent[0],
        parent_step=parent[1] if start is None else start.steps,
        start_state="" if start is None else start.state.name,
    )
    return Success((session, shell))


def taken_session(
    program: DurableProgram[Any, Any, Any],
    store: RunStore,
    run_id: str,
    size: int,
    child: ChildRecord | None = None,
) -> tuple[Session, Shell]:
    """The session of a run this process stored and owns already (``size``: its memory's bytes).

    ``child``: the run's row as a child (its parent just started it here).
    """
    shell = program.shell()
    session = _session(program, store, run_id, shell, this_owner(), size)
    session.child = child
    return session, shell


def resumable_session(
    program: DurableProgram[Any, Any, Any], store: RunStore, run_id: str, allow_changed: bool, taken: bool
) -> Result[tuple[Session, Shell, Loaded[Any, Any]], DurableError]:
    """Claim run ``run_id`` (unless ``taken``: this process owns it already) and load it to go on.

    The session knows whether the run is a child (its row is read once, here).
    """
    from agentsm_fn.durable.running.children import child_row  # noqa: PLC0415  # children build on program

    shell = program.shell()
    now, owner = (program.clock or shell.clock)(), this_owner()
    claimed = None if taken else store.claim(run_id, owner, now, now + program.lease)
    if isinstance(claimed, Failure):
        return claimed
    loaded = load_for_resume(store, program.machine, run_id, program.fingerprint, allow_changed)
    if isinstance(loaded, Failure):
        release(store, run_id, owner, now)
        return loaded
    found = loaded.unwrap()
    session = Session(
        run_id=run_id,
        store=store,
        owner=owner,
        clock=shell.clock,
        rows=found.rows,
        tail=found.tail,
        first_seq=found.first_seq,
        skip_first_ticks=found.from_checkpoint,
        checkpoint_after=program.checkpoint_after,
        checkpoint_bytes=found.checkpoint_bytes,
    )
    session.resumed = True
    session.child = child_row(store, run_id)
    carry(session, shell)
    return Success((session, shell, found))
