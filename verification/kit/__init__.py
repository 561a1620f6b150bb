"""The property-testing kit: Hypothesis strategies and state machines derived from a machine's table.

* :func:`check_machine` property-tests any machine in one call and returns its
  :class:`CoverageReport`; :func:`derive_state_machine` returns the
  ``RuleBasedStateMachine`` behind it for use as a ``unittest`` test case.
* Invariants: :func:`memory_invariant`, :func:`transition_invariant` and the
  ownership helpers :func:`only_changed_in`, :func:`cleared_in`,
  :func:`append_only`, :func:`unchanged_in`.
* Outcomes of effects: the :class:`Outcomes` registry (:func:`default_outcomes`
  knows :class:`~agentsm_fn.llm.LlmCall`).
* Strategies for the LLM values and for a user's machine (:func:`events_of`,
  :func:`memories_through`, :func:`snapshots_through`).
* Profiles: :func:`kit_settings` (``ci`` or ``deep``, ``$HYPOTHESIS_PROFILE``).
"""

from verification.kit.coverage import CoverageGap, CoverageRecorder, CoverageReport, RowName, row_label
from verification.kit.derived import PathStep, Violation, ViolationKind, check_machine, derive_state_machine
from verification.kit.invariants import (
    Invariant,
    MemoryInvariant,
    Transition,
    TransitionInvariant,
    append_only,
    cleared_in,
    memory_invariant,
    only_changed_in,
    transition_invariant,
    unchanged_in,
)
from verification.kit.outcomes import Outcomes, default_outcomes, outcomes_of
from verification.kit.profiles import CI_PROFILE, DEEP_PROFILE, kit_settings
from verification.kit.strategies import (
    json_objects,
    llm_failures,
    llm_outcome_examples,
    llm_outcomes,
    llm_outcomes_for,
    llm_replies,
    llm_requests,
    messages,
    tool_calls,
    tool_names,
    tool_specs,
    usages,
)

__all__ = [
    "CI_PROFILE",
    "CoverageGap",
    "CoverageRecorder",
    "CoverageReport",
    "DEEP_PROFILE",
    "Invariant",
    "MemoryInvariant",
    "Outcomes",
    "PathStep",
    "RowName",
    "Transition",
    "TransitionInvariant",
    "Violation",
    "ViolationKind",
    "append_only",
    "check_machine",
    "cleared_in",
    "default_outcomes",
    "derive_state_machine",
    "json_objects",
    "kit_settings",
    "llm_failures",
    "llm_outcome_examples",
    "llm_outcomes",
    "llm_outcomes_for",
    "llm_replies",
    "llm_requests",
    "memory_invariant",
    "messages",
    "only_changed_in",
    "outcomes_of",
    "row_label",
    "tool_calls",
    "tool_names",
    "tool_specs",
    "transition_invariant",
    "unchanged_in",
    "usages",
]
