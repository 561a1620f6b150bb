"""The property-testing kit: Hypothesis strategies and state machines derived from a machine's table.

* :func:`check_machine` property-tests any machine in one call and returns its
  :class:`CoverageReport`; :func:`derive_state_machine` returns the
  ``RuleBasedStateMachine`` behind it (its ``TestCase`` runs under unittest/pytest).
* Run properties (:mod:`verification.kit.run_properties`): :func:`never`, :func:`only_after`,
  :func:`responds`, :func:`at_most` over letters (:func:`took`, :func:`entered`,
  :func:`requested`, :func:`received`), checked over every generated run.
* Invariants: :func:`memory_invariant`, :func:`transition_invariant` and the
  ownership helpers :func:`only_changed_in`, :func:`cleared_in`,
  :func:`append_only`, :func:`unchanged_in`.
* Outcomes of effects: the :class:`Outcomes` registry (:func:`default_outcomes`
  knows :class:`~agentsm_fn.llm.LlmCall`); effect failures (:func:`effect_failures`,
  :func:`has_failure_route`) are fed wherever a state has a failure route.
* Strategies: the LLM values (:func:`llm_replies`, :func:`llm_failures`, ...) and a
  user's machine (:func:`events_of`, :func:`memories_through`, :func:`snapshots_through`).
* The deterministic suite: :func:`covering_paths` (fewest runs taking every row) and
  :func:`covering_cases` (those runs scripted), replayed by :func:`run_case`.
* Profiles: :func:`kit_settings` (``ci`` or ``deep``, or ``$HYPOTHESIS_PROFILE``).

The built-in agents have their own modules: :mod:`verification.kit.react_strategies`
and :mod:`verification.kit.react_invariants` (and the plan-and-execute ones).
"""

from verification.kit.coverage import CoverageGap, CoverageRecorder, CoverageReport, RowName, row_label
from verification.kit.derived import (
    PathStep,
    RunViolation,
    Start,
    ViolationKind,
    check_machine,
    derive_state_machine,
)
from verification.kit.failures import FAILURE_ODDS, effect_failures, failure_examples, has_failure_route
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
from verification.kit.letters import Letter, entered, received, requested, took
from verification.kit.machines import events_of, memories_through, snapshots_through
from verification.kit.outcomes import Outcomes, default_outcomes, outcomes_of
from verification.kit.paths import CoveringPaths, covering_paths, shortest_finish
from verification.kit.profiles import CI_PROFILE, CI_SEED, DEEP_PROFILE, kit_settings
from verification.kit.run_properties import RunProperty, at_most, never, only_after, responds
from verification.kit.scripts import CoveringSuite, ScriptedCase, covering_cases, run_case
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
    "CI_SEED",
    "CoverageGap",
    "CoverageRecorder",
    "CoverageReport",
    "CoveringPaths",
    "CoveringSuite",
    "DEEP_PROFILE",
    "FAILURE_ODDS",
    "Invariant",
    "Letter",
    "MemoryInvariant",
    "Outcomes",
    "PathStep",
    "RowName",
    "RunProperty",
    "RunViolation",
    "ScriptedCase",
    "Start",
    "Transition",
    "TransitionInvariant",
    "ViolationKind",
    "append_only",
    "at_most",
    "check_machine",
    "cleared_in",
    "covering_cases",
    "covering_paths",
    "default_outcomes",
    "derive_state_machine",
    "effect_failures",
    "entered",
    "events_of",
    "failure_examples",
    "has_failure_route",
    "json_objects",
    "kit_settings",
    "llm_failures",
    "llm_outcome_examples",
    "llm_outcomes",
    "llm_outcomes_for",
    "llm_replies",
    "llm_requests",
    "memories_through",
    "memory_invariant",
    "messages",
    "never",
    "only_after",
    "only_changed_in",
    "outcomes_of",
    "received",
    "requested",
    "responds",
    "row_label",
    "run_case",
    "shortest_finish",
    "snapshots_through",
    "took",
    "tool_calls",
    "tool_names",
    "tool_specs",
    "transition_invariant",
    "unchanged_in",
    "usages",
]
