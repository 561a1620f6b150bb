"""Durable runs: a run survives a crash, resumes in another process, and is checked against a changed machine."""

from agentsm_fn.durable.codec import from_bytes, to_bytes
from agentsm_fn.durable.errors import (
    AnswerRefused,
    CodecFailure,
    CodecFailureKind,
    Diverged,
    DurableError,
    MachineChanged,
    NotResumable,
    RunBusy,
    RunNotFound,
    Stopped,
    StoreFailure,
)

__all__ = [
    "AnswerRefused",
    "CodecFailure",
    "CodecFailureKind",
    "Diverged",
    "DurableError",
    "MachineChanged",
    "NotResumable",
    "RunBusy",
    "RunNotFound",
    "Stopped",
    "StoreFailure",
    "from_bytes",
    "to_bytes",
]
