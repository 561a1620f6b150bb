"""What can go wrong with a stored run: typed values, never exceptions.

::

    DurableError
    ├── CodecFailure       a value could not be encoded, or stored bytes decoded (names run and field)
    ├── StoreFailure       the database refused (locked past the busy timeout, disk full, not a store)
    ├── RunNotFound        no stored run has this id
    ├── NoSuchStep         the run's journal ends before the step asked for
    ├── MachineChanged     the run was stored by a machine with another fingerprint
    ├── Diverged           replaying the journal against this machine asks for other effects
    ├── RunBusy            another live process owns the run
    ├── NotResumable       the run is finished, waits for an answer, or was started elsewhere
    ├── AnswerRefused      an approval was answered already, or the answer does not fit
    ├── RunIdRefused       a run id chosen for a new run looks like a credential
    └── Stopped            the machine itself failed (the engine's ``RunFailed``)

One idea over 300 lines: the tree above, one small value per leaf; split, the union would be
read across files.
"""

from __future__ import annotations

import enum
from typing import TypeAlias

import attrs

from agentsm_fn.core.failures import RunFailed

__all__ = [
    "AnswerRefusal",
    "AnswerRefused",
    "CodecFailure",
    "CodecFailureKind",
    "Diverged",
    "DurableError",
    "MachineChanged",
    "NoSuchStep",
    "NotResumable",
    "RunBusy",
    "RunIdRefused",
    "RunNotFound",
    "Stopped",
    "StoreFailure",
]


class CodecFailureKind(enum.Enum):
    """Why a value did not encode or decode."""

    NOT_ENCODABLE = "not encodable"
    UNKNOWN_CLASS = "unknown class"
    VERSION = "version"
    CORRUPT = "corrupt"
    WRONG_TYPE = "wrong type"


@attrs.frozen(kw_only=True)
class CodecFailure:
    """A value that did not encode, or stored bytes that did not decode.

    ``path`` is the field inside the value (``.history[2].tool``); ``run_id`` and
    ``column`` (``memory``, ``journal[4].outcome``) are filled in by the store.

    Example:
        >>> CodecFailure(kind=CodecFailureKind.CORRUPT, detail="truncated", path=".tool",
        ...              run_id="r1", column="journal[4].outcome").describe()
        'run r1, journal[4].outcome.tool: corrupt: truncated'
    """

    kind: CodecFailureKind
    detail: str
    path: str = ""
    run_id: str = ""
    column: str = ""

    def describe(self) -> str:
        """One line for logs and reports."""
        where = f"{self.column}{self.path}" or "value"
        run = f"run {self.run_id}, " if self.run_id else ""
        return f"{run}{where}: {self.kind.value}: {self.detail}"

    def within(self, run_id: str, column: str) -> CodecFailure:
        """The same failure, naming the run and the stored column it came from."""
        return attrs.evolve(self, run_id=run_id, column=column)


@attrs.frozen(kw_only=True)
class StoreFailure:
    """The database refused an operation (never holds a secret: a connection string's password is redacted).

    Example:
        >>> StoreFailure(operation="commit", detail="database is locked").describe()
        'store: commit failed: database is locked'
    """

    operation: str
    detail: str
    run_id: str = ""

    def describe(self) -> str:
        """One line for logs and reports."""
        run = f" (run {self.run_id})" if self.run_id else ""
        return f"store: {self.operation} failed{run}: {self.detail}"


@attrs.frozen(kw_only=True)
class RunNotFound:
    """No stored run has this id.

    Example:
        >>> RunNotFound(run_id="r9").describe()
        'no stored run r9'
    """

    run_id: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"no stored run {self.run_id}"


@attrs.frozen(kw_only=True)
class MachineChanged:
    """The run was stored by a machine with another fingerprint; it is never resumed silently.

    Example:
        >>> MachineChanged(run_id="r1", machine="shop:ORDERS", stored="ab12", current="cd34").describe()[:44]
        'run r1: machine shop:ORDERS changed (stored '
    """

    run_id: str
    machine: str
    stored: str
    current: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"run {self.run_id}: machine {self.machine} changed (stored fingerprint {self.stored[:12]}, "
            f"now {self.current[:12]}); run `agentsm-runs check` first, then resume with --allow-changed"
        )


@attrs.frozen(kw_only=True)
class Diverged:
    """Replaying the run's journal against this machine goes another way.

    ``step`` is the first transition whose replay differs (the trace's step number),
    ``seq`` the journal entry. ``detail`` says what differs.

    Example:
        >>> Diverged(run_id="r1", seq=3, step=7, detail="asked for Charge, journal has Refund").describe()
        'run r1 diverges at step 7 (journal entry 3): asked for Charge, journal has Refund'
    """

    run_id: str
    seq: int
    step: int
    detail: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"run {self.run_id} diverges at step {self.step} (journal entry {self.seq}): {self.detail}"


@attrs.frozen(kw_only=True)
class RunBusy:
    """Another live process owns the run (its lease has not expired).

    Example:
        >>> RunBusy(run_id="r1", owner="host:42").describe()
        'run r1 is being run by host:42'
    """

    run_id: str
    owner: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"run {self.run_id} is being run by {self.owner}"


@attrs.frozen(kw_only=True)
class NoSuchStep:
    """The run's journal ends before ``step``: it ``reaches`` that many transitions.

    Example:
        >>> NoSuchStep(run_id="r1", step=7, reaches=3).describe()
        'run r1 has no step 7: its journal reaches step 3'
    """

    run_id: str
    step: int
    reaches: int

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"run {self.run_id} has no step {self.step}: its journal reaches step {self.reaches}"


@attrs.frozen(kw_only=True)
class NotResumable:
    """The run cannot go on from here: ``why`` says what it waits for.

    Example:
        >>> NotResumable(run_id="r1", status="finished", why="it is finished").describe()
        'run r1 (finished) cannot be resumed: it is finished'
    """

    run_id: str
    status: str
    why: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"run {self.run_id} ({self.status}) cannot be resumed: {self.why}"


class AnswerRefusal(enum.Enum):
    """Why an answer was refused, for code that acts on it (an HTTP status) without reading ``why``."""

    ANSWERED_ALREADY = "answered already"
    """The effect has an answer: the first one was committed, this one was not."""
    WRONG_TYPE = "wrong type"
    """The waiting effect does not accept an outcome of this type."""
    NOTHING_WAITS = "nothing waits"
    """No such entry, an entry that waits for no answer, or a run that waits for nothing (finished)."""
    NOT_BELOW = "not below"
    """The run answered through another is not that run nor one of its children, down its tree."""


@attrs.frozen(kw_only=True)
class AnswerRefused:
    """An answer to a waiting effect was not recorded: ``kind`` says why, ``why`` in words.

    Example:
        >>> refused = AnswerRefused(
        ...     run_id="r1", seq=2, kind=AnswerRefusal.ANSWERED_ALREADY, why="it was answered already"
        ... )
        >>> refused.describe()
        'answer to run r1, entry 2 refused: it was answered already'
    """

    run_id: str
    seq: int
    kind: AnswerRefusal
    why: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"answer to run {self.run_id}, entry {self.seq} refused: {self.why}"


@attrs.frozen(kw_only=True)
class RunIdRefused:
    """A run id chosen for a new run was refused; nothing was stored. It never holds the id itself.

    Example:
        >>> RunIdRefused(why="looks like a credential").describe()
        'the run id looks like a credential'
    """

    why: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"the run id {self.why}"


@attrs.frozen(kw_only=True)
class Stopped:
    """The machine failed (the engine's ``RunFailed``); the run is stored as failed.

    Example:
        >>> import enum
        >>> from agentsm_fn.core import MissingHandler, Snapshot
        >>> class S(enum.Enum):
        ...     A = 1
        >>> failed = RunFailed(MissingHandler(S.A), Snapshot(state=S.A, memory=0))
        >>> Stopped(run_id="r1", failed=failed).describe()
        'run r1 failed: no handler registered for state A'
    """

    run_id: str
    failed: RunFailed[enum.Enum, object]

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"run {self.run_id} failed: {self.failed.reason.describe()}"


DurableError: TypeAlias = (
    CodecFailure
    | StoreFailure
    | RunNotFound
    | NoSuchStep
    | MachineChanged
    | Diverged
    | RunBusy
    | NotResumable
    | AnswerRefused
    | RunIdRefused
    | Stopped
)
"""Every way a durable operation can fail (see the tree in the module docstring)."""
