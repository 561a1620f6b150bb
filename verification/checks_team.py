"""A delegating machine's checks: SM016 of its own states, SM017 and SM018 of it with its children.

A machine that delegates is the root of a team of one agent: :func:`check_delegations` checks its
children's outcomes (:mod:`verification.checks_children`), the depth they nest to
(:mod:`verification.nesting`) and its composed graph with them (:mod:`verification.composition`).
A machine that delegates to no child gets nothing here (the codes are not applicable to it).
"""

from __future__ import annotations

from verification.analysis import Analysis
from verification.checks_children import check_children
from verification.composition import check_composition, compose
from verification.findings import PropertyViolation
from verification.nesting import Nesting, check_nesting, children_of

__all__ = ["check_delegations"]


def check_delegations(a: Analysis) -> tuple[list[PropertyViolation], Nesting | None]:
    """SM016, SM017 and SM018 of ``a``'s machine and how deep its children nest (None: no child).

    Example:
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> from verification._examples import DELEGATING  # WAITING delegates; terminal B unmapped
        >>> found, nesting = check_delegations(analyse(graph_of(DELEGATING)))
        >>> [v.code for v in found], nesting.depth
        (['SM016'], 1)
    """
    if not children_of(a.model):
        return [], None
    name = a.model.name or "<unnamed>"
    nested, nesting = check_nesting(a.model)
    composed = check_composition(compose(name, {name: a.model}))
    return [*check_children(a), *composed, *nested], nesting
