"""Durable runs: a run survives a crash, resumes in another process, is checked against a changed machine.

A thread is an ordered chain of durable runs, one per turn (``Durable.chat``; docs/threads.md).
"""

from agentsm_fn.core.fingerprint import machine_fingerprint, machine_fingerprint_text
from agentsm_fn.durable.child_errors import (
    ChildError,
    ChildMachineChanged,
    ChildOutcomeCorrupt,
    ChildProgramUnknown,
)
from agentsm_fn.durable.errors import (
    AnswerRefusal,
    AnswerRefused,
    CodecFailure,
    CodecFailureKind,
    Diverged,
    DurableError,
    MachineChanged,
    NoSuchStep,
    NotResumable,
    RunBusy,
    RunIdRefused,
    RunNotFound,
    Stopped,
    StoreFailure,
)
from agentsm_fn.durable.operations.cancel import cancel, stored_children
from agentsm_fn.durable.running._tracing import TraceCarrier
from agentsm_fn.durable.running.chat import Turn
from agentsm_fn.durable.running.digest import content_digest
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.in_process import in_process_children
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.running.run_ids import child_run_id
from agentsm_fn.durable.running.streaming import stored_events
from agentsm_fn.durable.running.templates import TemplateMismatch
from agentsm_fn.durable.stores import is_postgres, open_store
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore, NewChild
from agentsm_fn.durable.stores.protocol.store import (
    Checkpoint,
    JournalRow,
    NewRun,
    RunRecord,
    RunStatus,
    RunStore,
    TraceContexts,
)
from agentsm_fn.durable.stores.protocol.threads import (
    NewThread,
    NewTurn,
    ThreadQuery,
    ThreadRecord,
    ThreadStore,
    TurnRecord,
    TurnStatus,
)
from agentsm_fn.durable.stores.sqlite import Durability, SqliteStore
from agentsm_fn.durable.thread_errors import (
    HolderUnknown,
    NoSuchTurn,
    NotConversational,
    OtherMachine,
    ThreadBusy,
    ThreadError,
    ThreadExists,
    ThreadIdRefused,
    ThreadNotFound,
)

__all__ = [
    "AnswerRefusal",
    "AnswerRefused",
    "Checkpoint",
    "ChildError",
    "ChildMachineChanged",
    "ChildOutcomeCorrupt",
    "ChildProgramUnknown",
    "ChildRecord",
    "ChildStore",
    "CodecFailure",
    "CodecFailureKind",
    "Diverged",
    "Durability",
    "Durable",
    "DurableError",
    "HolderUnknown",
    "JournalRow",
    "MachineChanged",
    "NewChild",
    "NewRun",
    "NewThread",
    "NewTurn",
    "NoSuchStep",
    "NoSuchTurn",
    "NotConversational",
    "NotResumable",
    "OtherMachine",
    "RunBusy",
    "RunIdRefused",
    "RunNotFound",
    "RunRecord",
    "RunStatus",
    "RunStore",
    "SqliteStore",
    "Stopped",
    "StoreFailure",
    "StoredRun",
    "TemplateMismatch",
    "ThreadBusy",
    "ThreadError",
    "ThreadExists",
    "ThreadIdRefused",
    "ThreadNotFound",
    "ThreadQuery",
    "ThreadRecord",
    "ThreadStore",
    "TraceCarrier",
    "TraceContexts",
    "Turn",
    "TurnRecord",
    "TurnStatus",
    "cancel",
    "child_run_id",
    "content_digest",
    "from_bytes",
    "in_process_children",
    "is_postgres",
    "machine_fingerprint",
    "machine_fingerprint_text",
    "open_store",
    "stored_children",
    "stored_events",
    "to_bytes",
]
