"""SM018: nested children are bounded. The graph of machine -> child machine has no cycle.

A delegating state runs a child machine, which may delegate in turn. :func:`check_nesting` walks
that graph from a machine (machines are the same when they are the same object, so two programs
of one machine are one node): a cycle is recursion, children that can nest without bound, reported
with the delegations on it; otherwise :class:`Nesting` gives the depth (0: no child; 1: children
that delegate to none; ...) and every program delegated to.
"""

from __future__ import annotations

import attrs

from verification.child_reading import ChildInfo, SeenMachine
from verification.findings import PropertyViolation
from verification.model import MachineGraph, graph_of

__all__ = ["Nesting", "check_nesting", "children_of"]


@attrs.frozen(kw_only=True)
class Nesting:
    """How deep a machine's children nest, and the programs it delegates to (at any depth).

    ``depth`` is None when children can nest without bound (recursion: SM018).

    Example:
        >>> Nesting(depth=2, programs=("a:RUN", "b:RUN")).depth
        2
    """

    depth: int | None
    programs: tuple[str, ...] = ()


_Delegation = tuple[str, str, ChildInfo]
"""(machine's name, state, child) along a walk."""


def children_of(model: MachineGraph) -> tuple[tuple[str, ChildInfo], ...]:
    """The delegating states of ``model`` and their children, in declaration order.

    Example:
        >>> from verification._examples import DELEGATING  # WAITING delegates to pkg.child:RUN
        >>> [(s, c.program) for s, c in children_of(graph_of(DELEGATING))]
        [('WAITING', 'pkg.child:RUN')]
    """
    return tuple((s.name, child) for s in model.states if not s.terminal for child in s.children)


class _Walk:
    def __init__(self) -> None:
        self.graphs: dict[int, MachineGraph] = {}
        self.depths: dict[int, int | None] = {}
        self.programs: dict[str, None] = {}
        self.cycles: dict[frozenset[int], tuple[_Delegation, ...]] = {}

    def graph(self, machine: SeenMachine) -> MachineGraph:
        if id(machine) not in self.graphs:
            self.graphs[id(machine)] = graph_of(machine)
        return self.graphs[id(machine)]

    def depth(
        self, key: int, name: str, model: MachineGraph, path: tuple[tuple[int, _Delegation], ...]
    ) -> int | None:
        if key in self.depths:
            return self.depths[key]
        deepest: int | None = 0
        for state, child in children_of(model):
            self.programs.setdefault(child.program)
            here = (key, (name, state, child))
            on_path = [k for k, _ in path] + [key]
            target = id(child.machine)
            if target in on_path:
                start = on_path.index(target)
                cycle = tuple(d for _, d in (*path, here)[start:])
                self.cycles.setdefault(frozenset(on_path[start:]), cycle)
                deepest = None
                continue
            below = self.depth(target, child.program, self.graph(child.machine), (*path, here))
            deepest = None if below is None or deepest is None else max(deepest, below + 1)
        if not any(key in members for members in self.cycles):
            self.depths[key] = deepest
        return deepest


def _finding(cycle: tuple[_Delegation, ...]) -> PropertyViolation:
    steps = ", ".join(f"{name}:{state} delegates to {child.program}" for name, state, child in cycle)
    return PropertyViolation(
        code="SM018",
        message=f"recursion: {steps}, which is where it began: children can nest without bound",
        states=tuple(f"{name}:{state}" for name, state, _ in cycle),
        location=cycle[-1][2].location,
        hint="bound the recursion by a machine that delegates to none, or ignore SM018 with the reason "
        "the depth is bounded (a budget the start memory carries down, say)",
    )


def check_nesting(model: MachineGraph) -> tuple[list[PropertyViolation], Nesting]:
    """SM018 from ``model``: recursion among its children, else the depth they nest to.

    A child that runs ``model``'s own machine again is found one level down (the graph does not
    keep the machine it was read from), named by its program.

    Example:
        >>> from verification._examples import DELEGATING  # WAITING delegates to ONE_STEP
        >>> check_nesting(graph_of(DELEGATING))
        ([], Nesting(depth=1, programs=('pkg.child:RUN',)))
    """
    walk = _Walk()
    depth = walk.depth(id(model), model.name or "<unnamed>", model, ())
    found = [_finding(cycle) for cycle in walk.cycles.values()]
    return found, Nesting(depth=None if found else depth, programs=tuple(walk.programs))
