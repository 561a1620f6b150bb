"""The generic machine core: pure, typed, and ignorant of LLMs.

Handlers, the frozen transition table, the machine value, the engine's pure fold
(step, resume, replay, drive), the trace and the journal.
"""

from agentsm_fn.core.compose import Embedded, Nested, choose, embed, lift, then
from agentsm_fn.core.driver import SUSPEND, Suspend, drive
from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.core.effects import Effect, Perform
from agentsm_fn.core.engine import begin, replay, resume, step
from agentsm_fn.core.failures import (
    BadDecision,
    EffectFailed,
    HandlerFaulted,
    HandlerRaised,
    InvalidTransition,
    MissingHandler,
    OutcomeRejected,
    Reason,
    ReplayDiverged,
    RunFailed,
    SafetyCapExceeded,
    WrongStatus,
)
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.fingerprint import machine_fingerprint, machine_fingerprint_text
from agentsm_fn.core.handlers import (
    Decision,
    Effectful,
    Handler,
    Outcome,
    Pure,
    PureHandler,
    effectful,
    emit,
    fail,
    perform,
    pure,
)
from agentsm_fn.core.journal import Journal, JournalEntry, effect_digest
from agentsm_fn.core.machine import HandlerLike, Machine, MachineDefinitionError, define_machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.core.trace import Trace, TraceEntry

__all__ = [
    "BadDecision",
    "Decision",
    "Effect",
    "EffectFailed",
    "EffectFailure",
    "Effectful",
    "Embedded",
    "FailureKind",
    "Fault",
    "Handler",
    "HandlerFaulted",
    "HandlerLike",
    "HandlerRaised",
    "InvalidTransition",
    "Journal",
    "JournalEntry",
    "Machine",
    "MachineDefinitionError",
    "MissingHandler",
    "Nested",
    "Outcome",
    "OutcomeRejected",
    "Perform",
    "Pure",
    "PureHandler",
    "Reason",
    "ReplayDiverged",
    "RunFailed",
    "SUSPEND",
    "SafetyCapExceeded",
    "Snapshot",
    "Status",
    "Suspend",
    "Trace",
    "TraceEntry",
    "WrongStatus",
    "begin",
    "choose",
    "define_machine",
    "drive",
    "effect_digest",
    "effectful",
    "embed",
    "emit",
    "fail",
    "lift",
    "machine_fingerprint",
    "machine_fingerprint_text",
    "perform",
    "pure",
    "replay",
    "resume",
    "step",
    "then",
]
