"""Property tests over random machines: witnesses, cycles and bounds against brute-force oracles.

The oracles share no code with the verifier: distances come from expanding
frontier sets step by step, cycles from enumerating every simple cycle with
``networkx.simple_cycles``, step bounds from walking every path.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

import attrs
import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn import Fault, Handler, Machine, fail, pure
from verification import Edge, NeverReachable, PassesThrough, Report, Witness, verify

EVENTS = ("A", "B", "C")


def _never(n: int) -> Result[tuple[enum.Enum, int], Fault]:
    return fail("never run")


@attrs.frozen
class Spec:
    n: int
    rows: dict[tuple[int, int], int]
    terminals: frozenset[int]
    budgeted: frozenset[int]
    emits: dict[int, frozenset[int]]

    def name(self, i: int) -> str:
        return f"S{i}"

    def machine(self) -> Machine[enum.Enum, enum.Enum, int]:
        states: type[enum.Enum] = enum.Enum("S", [self.name(i) for i in range(self.n)])  # type: ignore[misc]  # dynamic enum
        events: type[enum.Enum] = enum.Enum("E", EVENTS)  # type: ignore[misc]  # dynamic enum
        members = list(states)
        handlers: dict[enum.Enum, Handler[enum.Enum, int]] = {
            members[i]: pure(_never, events={events[EVENTS[e]] for e in self.emits[i]})
            for i in range(self.n)
            if i not in self.terminals
        }
        return Machine(
            states=states,
            events=events,
            initial=members[0],
            terminals=frozenset(members[i] for i in self.terminals),
            table={(members[s], events[EVENTS[e]]): members[t] for (s, e), t in self.rows.items()},
            handlers=handlers,
            budgeted=frozenset(members[i] for i in self.budgeted),
        )

    def flow(self) -> dict[str, set[tuple[str, str]]]:
        """The rows that can fire: not from terminals, only events the source emits."""
        out: dict[str, set[tuple[str, str]]] = {self.name(i): set() for i in range(self.n)}
        for (s, e), t in self.rows.items():
            if s not in self.terminals and e in self.emits[s]:
                out[self.name(s)].add((EVENTS[e], self.name(t)))
        return out


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    n = draw(st.integers(2, 7))
    state = st.integers(0, n - 1)
    rows = draw(st.dictionaries(st.tuples(state, st.integers(0, 2)), state, max_size=3 * n))
    terminals = frozenset(draw(st.sets(st.integers(1, n - 1), max_size=2)))
    budgeted = frozenset(draw(st.sets(state, max_size=2)))
    emits = {}
    for i in range(n):
        routed = frozenset(e for (s, e) in rows if s == i)
        emits[i] = routed if draw(st.booleans()) else frozenset(draw(st.sets(st.integers(0, 2))))
    return Spec(n=n, rows=rows, terminals=terminals, budgeted=budgeted, emits=emits)


def distances(
    flow: dict[str, set[tuple[str, str]]], start: str, avoid: frozenset[str] = frozenset()
) -> dict[str, int]:
    """Oracle: the step at which each node first appears in the expanding frontier."""
    found = {start: 0}
    frontier = {start}
    step = 0
    while frontier:
        step += 1
        frontier = {t for n in frontier for _, t in flow[n] if t not in found and t not in avoid}
        found.update((t, step) for t in frontier)
    return found


def valid_path(flow: dict[str, set[tuple[str, str]]], start: str, edges: tuple[Edge, ...]) -> bool:
    here = start
    for e in edges:
        if e.source != here or (e.event, e.target) not in flow[here]:
            return False
        here = e.target
    return True


def codes(report: Report, code: str) -> Iterator[tuple[tuple[str, ...], Witness | None]]:
    for v in report.violations:
        if v.code == code:
            yield v.states, v.witness


def digraph(flow: dict[str, set[tuple[str, str]]], nodes: set[str]) -> nx.DiGraph[str]:
    g: nx.DiGraph[str] = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from((n, t) for n in nodes for _, t in flow[n] if t in nodes)
    return g


@settings(max_examples=250, deadline=None)
@given(specs())
def test_unreachable_states_match_the_oracle(spec: Spec) -> None:
    reachable = set(distances(spec.flow(), "S0"))
    lost = {spec.name(i) for i in range(spec.n)} - reachable
    found = {s for states, _ in codes(verify(spec.machine()), "SM002") for s in states}
    assert found == lost


@settings(max_examples=250, deadline=None)
@given(specs(), st.integers(0, 6))
def test_reachability_witness_is_a_shortest_path(spec: Spec, target: int) -> None:
    goal = spec.name(target % spec.n)
    flow = spec.flow()
    report = verify(spec.machine(), policies=(NeverReachable(goal),))
    dist = distances(flow, "S0")
    witnesses = [w for _, w in codes(report, "SM012")]
    if goal not in dist:
        assert witnesses == []
        return
    (witness,) = witnesses
    assert witness is not None and valid_path(flow, "S0", witness.stem)
    assert len(witness.stem) == dist[goal]
    assert (witness.stem[-1].target if witness.stem else "S0") == goal


@settings(max_examples=250, deadline=None)
@given(specs(), st.integers(0, 6), st.integers(0, 6), st.integers(0, 6))
def test_policy_bypass_is_a_shortest_path_avoiding_the_gate(spec: Spec, x: int, y: int, z: int) -> None:
    src, dst, gate = (spec.name(i % spec.n) for i in (x, y, z))
    flow = spec.flow()
    report = verify(spec.machine(), policies=(PassesThrough(src, dst, gate),))
    witnesses = [w for _, w in codes(report, "SM011")]
    dist = distances(flow, src, avoid=frozenset({gate}))
    if gate in (src, dst) or dst not in dist:
        assert witnesses == []
        return
    (witness,) = witnesses
    assert witness is not None and valid_path(flow, src, witness.stem)
    assert len(witness.stem) == dist[dst]
    assert all(e.target != gate for e in witness.stem)


@settings(max_examples=250, deadline=None)
@given(specs())
def test_termination_cycles_are_shortest_lassos(spec: Spec) -> None:
    flow = spec.flow()
    dist = distances(flow, "S0")
    free = {n for n in dist if int(n[1:]) not in spec.budgeted}
    region = digraph(flow, free)
    cycles = list(nx.simple_cycles(region))
    report = verify(spec.machine())
    found = list(codes(report, "SM009"))
    assert bool(found) == bool(cycles)
    assert (report.bound is None) == bool(cycles)
    components = [c for c in nx.strongly_connected_components(region) if any(set(cy) <= c for cy in cycles)]
    assert len(found) == len(components)
    for _, witness in found:
        assert witness is not None and witness.loop
        assert valid_path(flow, "S0", witness.stem + witness.loop)
        assert witness.loop[-1].target == witness.loop[0].source
        loop_nodes = {e.source for e in witness.loop}
        assert loop_nodes <= free
        (component,) = [c for c in components if loop_nodes <= c]
        assert len(witness.loop) == min(len(cy) for cy in cycles if set(cy) <= component)
        assert len(witness.stem) == min(dist[n] for n in loop_nodes)


def longest_walk(flow: dict[str, set[tuple[str, str]]], node: str, budgeted: set[str]) -> int:
    """Oracle: the longest walk from ``node`` that stops at a budgeted state or a dead end."""
    best = 0
    for _, t in flow[node]:
        best = max(best, 1 if t in budgeted else 1 + longest_walk(flow, t, budgeted))
    return best


@settings(max_examples=250, deadline=None)
@given(specs())
def test_step_bound_matches_walking_every_path(spec: Spec) -> None:
    report = verify(spec.machine())
    if report.bound is None:
        return
    flow = spec.flow()
    reachable = set(distances(flow, "S0"))
    budgeted = {spec.name(i) for i in spec.budgeted}
    per_unit = max((longest_walk(flow, b, budgeted) for b in budgeted & reachable), default=0)
    before = 0 if "S0" in budgeted else longest_walk(flow, "S0", budgeted)
    assert (report.bound.per_budget_unit, report.bound.before_first_unit) == (per_unit, before)


@settings(max_examples=250, deadline=None)
@given(specs())
def test_states_without_option_to_complete_match_the_oracle(spec: Spec) -> None:
    flow = spec.flow()
    reachable = set(distances(flow, "S0"))
    terminals = {spec.name(i) for i in spec.terminals}
    stuck = {n for n in reachable if not (set(distances(flow, n)) & terminals)}
    report = verify(spec.machine())
    flagged = {s for code in ("SM004", "SM005") for states, _ in codes(report, code) for s in states}
    sinks = {n for n in stuck if not flow[n]}
    assert flagged | sinks == stuck
    assert flagged <= stuck
