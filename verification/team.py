"""Verify a team: each agent's machine on its own, then the team's composed graph (SM017).

:func:`verify_team` reads a :class:`~agentsm_fn.teams.Team` (its agents and their handoffs) and
returns one :class:`~verification.verify.Report` per agent, labelled ``TEAM[agent]`` (every property,
SM016 to SM018 with its children included), then one for the team, labelled ``TEAM``: its composed
graph (:mod:`verification.composition`: every agent with its children copied in, and each handoff
an edge into the target's initial state), where SM017 reports each cycle across agents that no
agent can leave to finish, and the nesting depth is the deepest of the agents'.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from agentsm_fn.teams.team import Team
from verification.composition import HandoffEdge, check_composition, compose
from verification.model import MachineGraph, graph_of
from verification.nesting import Nesting
from verification.verify import Ignore, Report, verify_graph

__all__ = ["verify_team"]


def _edges(team: Team, models: dict[str, MachineGraph]) -> list[HandoffEdge]:
    edges: list[HandoffEdge] = []
    for h in team.handoffs:
        if h.at is not None:
            edges.append(HandoffEdge(source=h.source, at=h.at.name, target=h.target))
        else:
            terminals = models[h.source].terminals
            edges.extend(
                HandoffEdge(source=h.source, at=t, target=h.target, optional=True) for t in terminals
            )
    return edges


def _nesting(reports: Iterable[Report]) -> Nesting | None:
    found = [r.nesting for r in reports if r.nesting is not None]
    if not found:
        return None
    programs = tuple(dict.fromkeys(p for n in found for p in n.programs))
    depths = [n.depth for n in found]
    deepest = None if any(d is None for d in depths) else max(d for d in depths if d is not None)
    return Nesting(depth=deepest, programs=programs)


def verify_team(team: Team, *, ignores: Iterable[Ignore] = (), label: str = "") -> tuple[Report, ...]:
    """One report per agent of ``team``, then the team's (SM017 across agents); ``problems()`` first.

    Raises ValueError naming the team's problems (a handoff from an unknown agent or state).

    Example:
        >>> from verification._examples import HANDOFF_LOOP  # triage <-> refunds, neither can finish
        >>> reports = verify_team(HANDOFF_LOOP, label="loop")
        >>> [r.machine for r in reports]
        ['loop[triage]', 'loop[refunds]', 'loop']
        >>> [v.code for v in reports[-1].violations]
        ['SM017']
    """
    problems = team.problems()
    if problems:
        raise ValueError("; ".join(problems))
    ignore_list = tuple(ignores)
    name = label or team.name or "team"
    models = {agent: graph_of(machine) for agent, machine in team.members().items()}
    reports = [verify_graph(m, ignores=ignore_list, label=f"{name}[{agent}]") for agent, m in models.items()]
    composed = compose(name, models, _edges(team, models))
    found = check_composition(composed, frozenset({"handoff"}))
    model = attrs.evolve(composed.model, findings=tuple(found))
    whole = verify_graph(model, ignores=ignore_list, label=name)
    return (*reports, attrs.evolve(whole, nesting=_nesting(reports)))
