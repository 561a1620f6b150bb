"""Liveness: option to complete (SM005) and termination (SM009), with the step bound.

* SM005: every reachable state can reach a terminal state. The states that
  cannot form a region whose bottom strongly connected components are either a
  *dead end* (a state with no way on, already reported as SM004 or SM006; here
  we list the states that can only end there) or a *livelock* (a cycle without
  terminals). One violation per bottom component.
* SM009: every cycle of the reachable behaviour graph passes through a budgeted
  state, i.e. the graph without budgeted states is acyclic. One violation per
  cyclic component, showing its shortest cycle as a lasso from the initial state.
  When it holds, :class:`StepBound` gives the worst-case transitions per budget unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verification.analysis import Analysis
from verification.bound import StepBound, bound_of
from verification.findings import Edge, PropertyViolation, Witness
from verification.paths import peel, reach, shortest_cycle

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["check_completion", "check_termination", "lasso"]


# networkx is imported where it is first needed: a machine with no unbudgeted cycle
# and no trapped region never needs it, and a short hook run skips ~0.2 s of import.


def _subgraph(a: Analysis, nodes: set[str] | frozenset[str]) -> nx.DiGraph[str]:
    import networkx as nx  # noqa: PLC0415  # see above

    g: nx.DiGraph[str] = nx.DiGraph()
    g.add_nodes_from(a.sorted_states(nodes))
    g.add_edges_from((n, t) for n in nodes for _, t in a.flow.get(n, ()) if t in nodes)
    return g


def _reverse(a: Analysis, nodes: set[str] | frozenset[str]) -> dict[str, list[tuple[str, str]]]:
    back: dict[str, list[tuple[str, str]]] = {n: [] for n in nodes}
    for n in nodes:
        for event, t in a.flow.get(n, ()):
            if t in nodes:
                back[t].append((event, n))
    return back


def lasso(a: Analysis, cycle: tuple[Edge, ...]) -> Witness:
    """``cycle`` as a lasso: a shortest path from the initial state to it, then round it once.

    Example:
        >>> from verification._examples import RETRY  # A --GO--> B, A --AGAIN--> A; A budgeted
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> lasso(analyse(graph_of(RETRY)), (Edge("A", "AGAIN", "A"),)).render()
        'A, then loop: A --AGAIN--> A'
    """
    on_cycle = {e.source for e in cycle}
    stem = a.path_from_initial(on_cycle) or ()
    entry = stem[-1].target if stem else a.model.initial
    turn = next((i for i, e in enumerate(cycle) if e.source == entry), 0)
    return Witness(start=a.model.initial, stem=stem, loop=(*cycle[turn:], *cycle[:turn]))


def check_completion(a: Analysis) -> list[PropertyViolation]:
    """SM005: every reachable state keeps the option to complete.

    Example:
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> from verification._examples import PLAN_ACT  # PLAN <-> ACT, either --END--> DONE
        >>> check_completion(analyse(graph_of(PLAN_ACT)))
        []
    """
    terminals = {s.name for s in a.model.states if s.terminal}
    reachable = set(a.reachable)
    back = _reverse(a, reachable)
    can_finish = reach(back, terminals & reachable)
    bad = reachable - can_finish
    if not bad:
        return []
    region = _subgraph(a, bad)
    import networkx as nx  # noqa: PLC0415  # see above

    condensed = nx.condensation(region)
    back_bad = _reverse(a, bad)
    found: list[PropertyViolation] = []
    for component in nx.topological_sort(condensed):
        if condensed.out_degree(component) != 0:
            continue
        members = set(condensed.nodes[component]["members"])
        trapped = reach(back_bad, members)
        names = a.sorted_states(members)
        loop = shortest_cycle(a.flow, names)
        if loop:
            witness = lasso(a, loop)
            others = a.sorted_states(trapped - members)
            lead = f"; {', '.join(others)} can only lead there" if others else ""
            found.append(
                PropertyViolation(
                    code="SM005",
                    message=f"livelock region {{{', '.join(names)}}}: runs that enter it cycle forever "
                    f"and never reach a terminal state{lead}",
                    states=(*names, *others),
                    events=tuple(dict.fromkeys(e.event for e in witness.loop)),
                    witness=witness,
                    location=a.model.by_name[names[0]].location if names[0] in a.model.by_name else None,
                    hint="add a row from the region to a terminal state (an exit event), "
                    "or a budgeted state whose exhaustion leaves it",
                )
            )
            continue
        (sink,) = members
        others = a.sorted_states(trapped - members)
        if not others:
            continue  # the dead end itself is SM004 (no rows) or SM006 (undeclared, no handler)
        found.append(
            PropertyViolation(
                code="SM005",
                message=f"dead end: {', '.join(others)} can only lead to {sink}, which cannot go on, "
                "so no terminal state is reachable from them",
                states=(*others, sink),
                witness=a.witness_to(members),
                location=a.model.by_name[others[0]].location if others[0] in a.model.by_name else None,
                hint=f"give {sink} a way on, or add rows from the listed states to a terminal state",
            )
        )
    return found


def check_termination(a: Analysis) -> tuple[list[PropertyViolation], StepBound | None]:
    """SM009: every reachable cycle passes through a budgeted state; the step bound when it holds.

    Example:
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> from verification._examples import PLAN_ACT  # PLAN <-> ACT, either --END--> DONE; PLAN budgeted
        >>> violations, bound = check_termination(analyse(graph_of(PLAN_ACT)))
        >>> violations, bound.per_budget_unit
        ([], 2)
        >>> violations, bound = check_termination(analyse(graph_of(PLAN_ACT.extend(budgeted=()))))
        >>> violations[0].witness.render(), bound
        ('PLAN, then loop: PLAN --GO--> ACT --GO--> PLAN', None)
    """
    budgeted = {s.name for s in a.model.states if s.budgeted}
    _, cyclic = peel(a.flow, a.sorted_states(a.reachable - budgeted))
    found: list[PropertyViolation] = []
    components: list[tuple[str, ...]] = []
    if cyclic:  # only the part on or after a cycle goes to networkx
        import networkx as nx  # noqa: PLC0415  # see above

        region = _subgraph(a, set(cyclic))
        components = [
            names
            for names in (a.sorted_states(c) for c in nx.strongly_connected_components(region))
            if len(names) > 1 or region.has_edge(names[0], names[0])
        ]
    for names in components:
        cycle = shortest_cycle(a.flow, names)
        witness = lasso(a, cycle)
        loop_states = tuple(dict.fromkeys(e.source for e in witness.loop))
        first = a.rows_from.get(cycle[0].source, ())
        row = next((r for r in first if r.event == cycle[0].event and r.target == cycle[0].target), None)
        found.append(
            PropertyViolation(
                code="SM009",
                message=f"cycle {' -> '.join((*loop_states, loop_states[0]))} passes through no budgeted "
                f"state, so a run can loop forever"
                + (f" ({len(names)} states in this cyclic region)" if len(names) > len(loop_states) else ""),
                states=loop_states,
                events=tuple(dict.fromkeys(e.event for e in witness.loop)),
                witness=witness,
                location=row.location if row else None,
                hint="declare a state of the loop in budgeted= (one that consumes a bounded counter "
                "and leaves the loop when it runs out), or break the loop",
            )
        )
    if found:
        return found, None
    return [], bound_of(a, budgeted)
