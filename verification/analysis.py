"""What every check shares: the behaviour graph of a machine and what is reachable in it.

The *behaviour graph* keeps the rows that can fire: terminal states have no
outgoing rows (a run stops on arrival), and a row whose event its source can
never emit is left out (it is reported as a dead row instead). When a state's
events are unknown, all its rows are kept.
"""

from __future__ import annotations

import attrs

from verification.findings import Edge, Witness
from verification.model import MachineGraph, Row
from verification.paths import reach, shortest_path_to_any

__all__ = ["Analysis", "analyse"]


@attrs.frozen(kw_only=True)
class Analysis:
    """A machine's model with its behaviour graph and reachable set.

    Example:
        >>> import enum
        >>> from agentsm_fn import define_machine, emit, pure
        >>> from verification.model import graph_of
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        ...     C = 3
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> h = pure(lambda n: emit(E.GO, n), events={E.GO})
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.B},
        ...     table={(S.A, E.GO): S.B, (S.C, E.GO): S.B}, handlers={S.A: h, S.C: h})
        >>> sorted(analyse(graph_of(m)).reachable)
        ['A', 'B']
    """

    model: MachineGraph
    flow: dict[str, tuple[tuple[str, str], ...]]
    reachable: frozenset[str]
    order: dict[str, int]
    rows_from: dict[str, tuple[Row, ...]]
    rows_to: dict[str, tuple[Row, ...]]

    def path_from_initial(self, goals: set[str] | frozenset[str]) -> tuple[Edge, ...] | None:
        """A shortest behaviour path from the initial state to any of ``goals``."""
        return shortest_path_to_any(self.flow, self.model.initial, goals)

    def witness_to(self, goals: set[str] | frozenset[str]) -> Witness | None:
        """A shortest witness path from the initial state to any of ``goals``."""
        path = self.path_from_initial(goals)
        return None if path is None else Witness(start=self.model.initial, stem=path)

    def sorted_states(self, names: set[str] | frozenset[str]) -> tuple[str, ...]:
        """``names`` in declaration order (undeclared names last, alphabetically)."""
        big = len(self.order)
        return tuple(sorted(names, key=lambda n: (self.order.get(n, big), n)))


def analyse(model: MachineGraph) -> Analysis:
    """Build the behaviour graph of ``model`` and what the initial state reaches in it.

    Example:
        >>> from verification._examples import RETRY  # A --GO--> B, A --AGAIN--> A; A budgeted
        >>> from verification.model import graph_of
        >>> analyse(graph_of(RETRY)).flow["A"]
        (('GO', 'B'), ('AGAIN', 'A'))
    """
    infos = model.by_name
    flow: dict[str, list[tuple[str, str]]] = {node: [] for node in model.nodes}
    for row in model.rows:
        info = infos.get(row.source)
        if info is not None:
            if info.terminal:
                continue
            emits = info.emits
            if info.has_handler and emits is not None and row.event not in emits:
                continue
        flow[row.source].append((row.event, row.target))
    frozen = {node: tuple(edges) for node, edges in flow.items()}
    reachable = frozenset(reach(frozen, [model.initial]))
    order = {s.name: i for i, s in enumerate(model.states)}
    rows_from: dict[str, list[Row]] = {}
    rows_to: dict[str, list[Row]] = {}
    for row in model.rows:
        rows_from.setdefault(row.source, []).append(row)
        rows_to.setdefault(row.target, []).append(row)
    return Analysis(
        model=model,
        flow=frozen,
        reachable=reachable,
        order=order,
        rows_from={k: tuple(v) for k, v in rows_from.items()},
        rows_to={k: tuple(v) for k, v in rows_to.items()},
    )
