"""SM017: a team's composed graph has no cycle without an exit (SM005's livelock rule across machines).

:func:`compose` builds one graph of a team's machines: each agent's behaviour graph; at each
delegating state, an edge into a copy of the child's initial state (a copy per delegating state,
so a child used twice returns only where it was called from) and, from each child terminal, an
edge back along the row of the event it maps to (a failure or a cancellation leaves the
delegating state directly, as it can come at any time); and a handoff's edge from the state of
agent A that hands the conversation over into agent B's initial state. Nodes are named
``agent:STATE`` and ``agent:STATE > program:STATE`` for children. The team finishes where an agent
reaches a terminal state that hands nothing over; a child's terminals are not exits.

:func:`check_composition` reports each region of that graph a run can enter and never leave (a
livelock: a bottom cycle without exits) that goes through a delegation or a handoff; one
machine's own livelock is its SM005. A recursive child (SM018) is not copied again: its delegating state keeps
its rows, as if the child could end any way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from verification.analysis import Analysis, analyse
from verification.checks_liveness import check_completion
from verification.findings import PropertyViolation
from verification.model import MachineGraph, Row, graph_of
from verification.paths import reach
from verification.states import StateInfo

__all__ = ["Composed", "HandoffEdge", "check_composition", "compose"]

MAX_NODES = 20_000
"""Children are copied until the composed graph has this many nodes; beyond, delegations stay rows."""


@attrs.frozen(kw_only=True)
class HandoffEdge:
    """A handoff: reaching ``at`` in agent ``source`` hands the conversation to agent ``target``.

    Example:
        >>> str(HandoffEdge(source="triage", at="HANDED_OFF", target="refunds"))
        'triage:HANDED_OFF hands off to refunds'
    """

    source: str
    at: str
    target: str
    optional: bool = False
    """Whether reaching ``at`` may also end the team's run (a terminal that may hand off, or not)."""

    def __str__(self) -> str:
        return f"{self.source}:{self.at} {'may hand' if self.optional else 'hands'} off to {self.target}"


@attrs.frozen(kw_only=True)
class Composed:
    """A team's composed graph, the machine copy (``instance``) of each node, and its links.

    ``links`` are the edges that join machines, ``(source, event, target)``, and their kind:
    ``"child"`` (into a child, or back from its terminal) or ``"handoff"``.
    """

    model: MachineGraph
    instance: Mapping[str, str]
    links: Mapping[tuple[str, str, str], str]


class _Builder:
    def __init__(self, handoffs: Sequence[HandoffEdge]) -> None:
        self.handoffs = handoffs
        self.states: list[StateInfo] = []
        self.rows: list[Row] = []
        self.instance: dict[str, str] = {}
        self.links: dict[tuple[str, str, str], str] = {}
        self.analyses: dict[int, Analysis] = {}

    def analysis(self, model: MachineGraph) -> Analysis:
        if id(model) not in self.analyses:
            self.analyses[id(model)] = analyse(model)
        return self.analyses[id(model)]

    def row(self, source: str, event: str, target: str, link: str = "") -> None:
        self.rows.append(Row(source=source, event=event, target=target))
        if link:
            self.links[(source, event, target)] = link

    def add(self, name: str, model: MachineGraph, stack: tuple[int, ...], root: bool) -> None:
        """Copy ``model`` as ``name``, and its children below it (not those on ``stack``: recursion)."""
        a = self.analysis(model)
        at = {h.at for h in self.handoffs if h.source == name and not h.optional} if root else set()
        infos = model.by_name
        for node in model.nodes:
            info = infos.get(node, StateInfo(name=node))
            exit_ = root and info.terminal and node not in at
            copied = attrs.evolve(info, name=f"{name}:{node}", terminal=exit_, has_handler=False, children=())
            self.states.append(copied)
            self.instance[copied.name] = name
        for node in model.nodes:
            known = infos.get(node)
            children = () if known is None or known.terminal else known.children
            skip: set[str] = set()
            for child in children:
                if len(self.states) >= MAX_NODES or id(child.machine) in stack:
                    continue
                child_model = graph_of(child.machine)
                copy = f"{name}:{node} > {child.program}"
                self.add(copy, child_model, (*stack, id(child.machine)), root=False)
                start = f"{copy}:{child_model.initial}"
                self.row(f"{name}:{node}", f"start {child.program}", start, "child")
                targets = dict(a.flow.get(node, ()))
                # a step agent's EXECUTE also emits its events itself (the executor's own work)
                direct = {r.event for r in child.routes if not r.terminals or child.kind == "step"}
                for route in child.routes:
                    if route.terminals and route.event in targets:
                        for terminal in route.terminals:
                            back = f"{name}:{targets[route.event]}"
                            self.row(f"{copy}:{terminal}", route.event, back, "child")
                        if route.event not in direct:
                            skip.add(route.event)
            for event, target in a.flow.get(node, ()):
                if event not in skip:
                    self.row(f"{name}:{node}", event, f"{name}:{target}")


def compose(label: str, agents: Mapping[str, MachineGraph], handoffs: Sequence[HandoffEdge] = ()) -> Composed:
    """The composed graph of ``agents`` (the first is where the team starts) and their ``handoffs``.

    Example:
        >>> from verification._examples import DELEGATING  # WAITING delegates to ONE_STEP (A -> B)
        >>> composed = compose("team", {"parent": graph_of(DELEGATING)})
        >>> for r in composed.model.rows:  # B, the child's terminal, maps to no event: no way back
        ...     print(f"{r.source} --{r.event}--> {r.target}")
        parent:WAITING > pkg.child:RUN:A --GO--> parent:WAITING > pkg.child:RUN:B
        parent:WAITING --start pkg.child:RUN--> parent:WAITING > pkg.child:RUN:A
        parent:WAITING --BROKE--> parent:DONE
    """
    build = _Builder(handoffs)
    for name, model in agents.items():
        build.add(name, model, (id(model),), root=True)
    for h in handoffs:
        target = agents.get(h.target)
        if target is not None:
            handed = f"{h.target}:{target.initial}"
            build.row(f"{h.source}:{h.at}", f"handoff to {h.target}", handed, "handoff")
    first = next(iter(agents))
    states = tuple(build.states)
    return Composed(
        model=MachineGraph(
            name=label,
            states=states,
            events=tuple(dict.fromkeys(r.event for r in build.rows)),
            initial=f"{first}:{agents[first].initial}",
            initial_declared=True,
            rows=tuple(build.rows),
            nodes=tuple(s.name for s in states),
            origin=agents[first].origin,
            applicable=frozenset({"SM017"}),
        ),
        instance=build.instance,
        links=build.links,
    )


def check_composition(
    composed: Composed, through: frozenset[str] = frozenset({"child", "handoff"})
) -> list[PropertyViolation]:
    """SM017: each livelock of the composed graph that goes through a link, with its machines and states.

    ``through``: the kinds of link a reported cycle goes through (a team's report: ``handoff`` only;
    each agent's own report has the cycles through its children).

    Example:
        >>> from verification._examples import DELEGATING
        >>> check_composition(compose("team", {"parent": graph_of(DELEGATING)}))
        []
    """
    a = analyse(composed.model)
    found: list[PropertyViolation] = []
    for v in check_completion(a):
        if v.witness is None or not v.witness.loop:
            continue  # a dead end: an unmapped child terminal (SM016) or a machine's own SM004/SM005
        inside = frozenset(reach(a.flow, [v.witness.loop[0].source]))  # the bottom component
        links = composed.links
        kinds = {links[(s, e, t)] for s in inside for e, t in a.flow.get(s, ()) if (s, e, t) in links}
        if not kinds & through:
            continue  # one machine's own livelock (its SM005), or one agent's with its children
        members = a.sorted_states(inside)
        machines = tuple(dict.fromkeys(composed.instance.get(m, m) for m in members))
        found.append(
            attrs.evolve(
                v,
                code="SM017",
                message=f"team livelock across {', '.join(machines)}: runs that enter "
                f"{{{', '.join(members)}}} go round forever and no agent ever finishes",
                hint="give an agent on the cycle a way to a terminal state that hands nothing over "
                "(or map a child's terminal to a row that leaves the cycle)",
            )
        )
    return found
