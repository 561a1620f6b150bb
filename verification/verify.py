"""Verify a machine: every property in one run, every violation reported, verdicts and soundness.

:func:`verify` reads a machine into the graph model, runs every check, applies
the user's ignores (each with a reason) and returns a :class:`Report`: one
:class:`Verdict` per property, the violations in a deterministic order, the
workflow-net soundness verdicts and, when termination holds, the step bound.

Soundness (workflow-net sense): *option to complete* (SM004, SM005, SM006,
SM008, SM015, SM016, SM017 hold), *proper completion* (SM003 holds: a run stops on reaching a
terminal state) and *no dead transitions* (SM002, SM007 hold). *Strong
soundness* adds termination (SM009). Ignored violations still count here.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Literal, TypeVar

import attrs

from agentsm_fn.core.machine import Machine
from verification.analysis import analyse
from verification.bound import StepBound
from verification.checks_events import check_events
from verification.checks_guards import check_guards
from verification.checks_liveness import check_completion, check_termination
from verification.checks_structure import check_structure
from verification.checks_team import check_delegations
from verification.findings import PROPERTIES, PropertyViolation
from verification.model import MachineGraph, graph_of
from verification.nesting import Nesting
from verification.policies import NeverReachable, PassesThrough, PathPolicy, check_policies

__all__ = ["Ignore", "Report", "Verdict", "step_bound", "verify", "verify_graph"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Status = Literal["proved", "violated", "ignored", "not declared", "not applicable"]
"""A property's verdict ("not applicable": the graph's framework lacks the notion, e.g. budgets)."""

_POLICY_CODES = frozenset({"SM011", "SM012"})
_OPTION_TO_COMPLETE = frozenset({"SM004", "SM005", "SM006", "SM008", "SM015", "SM016", "SM017"})
_PROPER_COMPLETION = frozenset({"SM003"})
_NO_DEAD_TRANSITIONS = frozenset({"SM002", "SM007"})


@attrs.frozen
class Ignore:
    """Ignore violations of the property ``code`` for a stated ``reason``.

    Example:
        >>> Ignore("SM009", "the loop is bounded by the provider's rate limit").code
        'SM009'
    """

    code: str
    reason: str


@attrs.frozen(kw_only=True)
class Verdict:
    """The verdict on one property.

    Example:
        >>> Verdict(code="SM002", name="reachability", status="proved", violations=0).status
        'proved'
    """

    code: str
    name: str
    status: Status
    violations: int
    reason: str = ""


@attrs.frozen(kw_only=True)
class Report:
    """Everything the verifier found about one machine.

    ``ok`` is True when no violation counts (ignored ones do not).

    Example:
        >>> from verification._examples import RETRY  # A --GO--> B, A --AGAIN--> A; A budgeted
        >>> report = verify(RETRY)
        >>> report.ok, report.sound, report.strongly_sound, report.bound.per_budget_unit
        (True, True, True, 1)
    """

    machine: str
    states: int
    rows: int
    verdicts: tuple[Verdict, ...]
    violations: tuple[PropertyViolation, ...]
    sound: bool
    strongly_sound: bool
    soundness_failures: tuple[str, ...]
    bound: StepBound | None
    model: MachineGraph = attrs.field(eq=False, repr=False)
    nesting: Nesting | None = None
    """How deep the machine's children nest (SM018), or None when it delegates to no child."""

    @property
    def ok(self) -> bool:
        """Whether every property is proved or its violations are ignored."""
        return all(v.ignored is not None for v in self.violations)

    @property
    def counted(self) -> tuple[PropertyViolation, ...]:
        """The violations that are not ignored."""
        return tuple(v for v in self.violations if v.ignored is None)


def _verdicts(
    violations: list[PropertyViolation],
    policies: tuple[PathPolicy, ...],
    ignores: dict[str, str],
    applicable: frozenset[str],
) -> tuple[Verdict, ...]:
    declared = {
        "SM011": any(isinstance(p, PassesThrough) for p in policies),
        "SM012": any(isinstance(p, NeverReachable) for p in policies),
    }
    verdicts: list[Verdict] = []
    for prop in PROPERTIES:
        mine = [v for v in violations if v.code == prop.code]
        status: Status
        if prop.code not in applicable:
            status = "not applicable"
        elif mine:
            status = "ignored" if prop.code in ignores else "violated"
        elif prop.code in _POLICY_CODES and not declared[prop.code]:
            status = "not declared"
        else:
            status = "proved"
        reason = ignores.get(prop.code, "") if mine else ""
        verdicts.append(
            Verdict(code=prop.code, name=prop.name, status=status, violations=len(mine), reason=reason)
        )
    return tuple(verdicts)


def _in_terms(message: str, terms: Mapping[str, str]) -> str:
    for phrase, words in terms.items():
        message = message.replace(phrase, words)
    return message


def verify_graph(
    model: MachineGraph,
    *,
    policies: Iterable[PathPolicy] = (),
    ignores: Iterable[Ignore] = (),
    label: str = "",
) -> Report:
    """Verify a machine already read into a :class:`MachineGraph` (see :func:`verify`).

    Example:
        >>> from verification._examples import RETRY  # A --GO--> B, A --AGAIN--> A; A budgeted
        >>> verify_graph(graph_of(RETRY), label="tiny").machine
        'tiny'
    """
    policy_tuple = tuple(policies)
    ignore_map = {i.code: i.reason for i in ignores}
    analysis = analyse(model)
    termination, bound = check_termination(analysis)
    delegations, nesting = check_delegations(analysis)
    found = [
        *check_structure(analysis),
        *check_completion(analysis),
        *check_events(analysis),
        *check_guards(analysis),
        *delegations,
        *termination,
        *check_policies(analysis, policy_tuple),
        *model.findings,
    ]
    terminates = not any(v.code == "SM009" for v in found)
    applies = model.applicable
    found = [
        attrs.evolve(
            v,
            message=_in_terms(v.message, model.terms),
            ignored=ignore_map.get(v.code),
            hint=model.hints.get(v.code, v.hint),
        )
        for v in found
        if v.code in applies
    ]
    found.sort(key=PropertyViolation.sort_key)
    codes = {v.code for v in found}
    failures = tuple(
        aspect
        for aspect, group in (
            ("option to complete", _OPTION_TO_COMPLETE),
            ("proper completion", _PROPER_COMPLETION),
            ("no dead transitions", _NO_DEAD_TRANSITIONS),
        )
        if codes & group
    )
    sound = not failures and "SM001" not in codes
    return Report(
        machine=label or model.name or "<unnamed>",
        states=len(model.states),
        rows=len(model.rows),
        verdicts=_verdicts(found, policy_tuple, ignore_map, applies),
        violations=tuple(found),
        sound=sound,
        strongly_sound=sound and terminates,
        soundness_failures=failures,
        bound=bound,
        model=model,
        nesting=nesting,
    )


def verify(
    machine: Machine[StateT, EventT, MemoryT],
    *,
    policies: Iterable[PathPolicy] = (),
    ignores: Iterable[Ignore] = (),
    label: str = "",
    source_files: Iterable[str] = (),
) -> Report:
    """Prove every property of ``machine``'s graph and report every violation.

    Raises :class:`~verification.policies.PolicyError` when a policy names an
    unknown state (a usage error); never raises on a malformed machine.

    Example:
        >>> import enum
        >>> from agentsm_fn import define_machine, emit, pure
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        ...     LOST = 3
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> h = pure(lambda n: emit(E.GO, n), events={E.GO})
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.B},
        ...     table={(S.A, E.GO): S.B, (S.LOST, E.GO): S.B}, handlers={S.A: h, S.LOST: h})
        >>> report = verify(m)
        >>> report.ok, [v.code for v in report.violations], report.sound
        (False, ['SM002'], False)
    """
    return verify_graph(graph_of(machine, source_files), policies=policies, ignores=ignores, label=label)


def step_bound(machine: Machine[StateT, EventT, MemoryT]) -> StepBound | None:
    """The worst-case transitions per budget unit of ``machine``, or None if it may not terminate.

    Example:
        >>> from verification._examples import RETRY  # A --GO--> B, A --AGAIN--> A; A budgeted
        >>> step_bound(RETRY).max_transitions(5)
        5
        >>> step_bound(RETRY.extend(budgeted=())) is None
        True
    """
    return check_termination(analyse(graph_of(machine)))[1]
