"""Policies a user declares about a machine, checked with a shortest bypass as witness.

* :class:`PassesThrough` (SM011): every path from ``source`` to ``target`` passes
  through ``through`` (``through`` dominates ``target`` from ``source``), e.g.
  approval before a dangerous action. Witness: a shortest path that avoids it.
* :class:`NeverReachable` (SM012): ``state`` is never reachable from the initial
  state. Witness: a shortest path to it.

States are named by their member names (enum members are accepted too).
"""

from __future__ import annotations

import enum

import attrs

from verification.analysis import Analysis
from verification.findings import PropertyViolation, Witness
from verification.paths import shortest_path_to_any

__all__ = ["NeverReachable", "PassesThrough", "PathPolicy", "PolicyError", "check_policies"]


def _name(value: str | enum.Enum) -> str:
    return value.name if isinstance(value, enum.Enum) else value


@attrs.frozen
class PassesThrough:
    """Every path from ``source`` to ``target`` passes through ``through``.

    Example:
        >>> PassesThrough("PLAN", "ACT", "APPROVE").describe()
        'every path from PLAN to ACT passes through APPROVE'
    """

    source: str = attrs.field(converter=_name)
    target: str = attrs.field(converter=_name)
    through: str = attrs.field(converter=_name)

    def describe(self) -> str:
        """The policy in words."""
        return f"every path from {self.source} to {self.target} passes through {self.through}"

    def names(self) -> tuple[str, ...]:
        """The states the policy mentions."""
        return (self.source, self.target, self.through)


@attrs.frozen
class NeverReachable:
    """``state`` is never reachable from the initial state.

    Example:
        >>> NeverReachable("DELETE_ALL").describe()
        'state DELETE_ALL is never reachable'
    """

    state: str = attrs.field(converter=_name)

    def describe(self) -> str:
        """The policy in words."""
        return f"state {self.state} is never reachable"

    def names(self) -> tuple[str, ...]:
        """The states the policy mentions."""
        return (self.state,)


PathPolicy = PassesThrough | NeverReachable
"""A declared policy."""


class PolicyError(ValueError):
    """Policies name states the machine does not declare; ``problems`` lists each.

    Example:
        >>> str(PolicyError(("policy names NOPE",)))
        'policy names NOPE'
    """

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _check(a: Analysis, policy: PathPolicy) -> PropertyViolation | None:
    if isinstance(policy, NeverReachable):
        if policy.state not in a.reachable:
            return None
        return PropertyViolation(
            code="SM012",
            message=f"policy violated: {policy.describe()}, yet it is reachable",
            states=(policy.state,),
            witness=a.witness_to({policy.state}),
            location=a.model.by_name[policy.state].location,
            hint=f"remove the rows that lead to {policy.state}, or drop the policy",
        )
    if policy.through in (policy.source, policy.target):
        return None
    bypass = shortest_path_to_any(a.flow, policy.source, {policy.target}, avoid={policy.through})
    if bypass is None:
        return None
    return PropertyViolation(
        code="SM011",
        message=f"policy violated: {policy.describe()}, but a path avoids {policy.through}",
        states=policy.names(),
        events=tuple(dict.fromkeys(e.event for e in bypass)),
        witness=Witness(start=policy.source, stem=bypass),
        location=next(
            (r.location for r in a.rows_from.get(bypass[-1].source, ()) if r.event == bypass[-1].event), None
        )
        if bypass
        else None,
        hint=f"route every row into {policy.target} through {policy.through}",
    )


def check_policies(a: Analysis, policies: tuple[PathPolicy, ...]) -> list[PropertyViolation]:
    """SM011 and SM012 for each declared policy; raise :class:`PolicyError` for unknown states.

    Example:
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> [v.witness.render() for v in check_policies(analyse(graph_of(ONE_STEP)), (NeverReachable("B"),))]
        ['A --GO--> B']
    """
    known = a.model.by_name
    problems = tuple(
        f"policy '{p.describe()}' names {n}, which is not a state of {a.model.name or 'the machine'}"
        for p in policies
        for n in dict.fromkeys(p.names())
        if n not in known
    )
    if problems:
        raise PolicyError(problems)
    return [v for v in (_check(a, p) for p in policies) if v is not None]
