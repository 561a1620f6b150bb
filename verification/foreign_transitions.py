"""Read a transitions ``Machine`` into the verifier's graph model.

States are ``machine.states`` (their names), the initial state is ``machine.initial``;
every transition of every trigger is a row labelled by its trigger (a wildcard source
``'*'`` is already one transition per state; an internal transition, ``dest=None``,
changes no state and is left out, and so are the automatic ``to_<state>`` triggers,
which let any state go anywhere and would hide every finding). The terminal states
are those declared ``final=True``; a machine that declares none ends in the states
with no way out. A final state does not stop a transitions machine, but the verifier
reads it as the end of a run, so transitions out of it are a finding (SM003).
transitions records no line numbers, so states and rows are located at the first line
of the target's module that quotes their name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from transitions import Machine
from transitions.extensions.nesting import HierarchicalMachine

from verification.findings import Location
from verification.foreign_graph import Node, assemble_graph, kind_of
from verification.locate import class_location, first_line
from verification.model import MachineGraph, Row

__all__ = ["transitions_graph"]

FRAMEWORK = "transitions"
APPLICABLE = frozenset({f"SM{n:03}" for n in (1, 2, 3, 4, 5, 6, 11, 12)})
"""Triggers are the events (SM007/SM008/SM013 say nothing); no budgets (SM009) or effects (SM010)."""
TERMS = {
    "which can never fire (a run stops on arrival)": "so the machine can leave a state it calls final "
    "(the verifier reads final states as the ends of a run, and what only they lead to as unreachable)",
}
"""SM003 in transitions' words: a final state does not stop a transitions machine."""
HINTS = {
    "SM003": "make the state non-final, or keep transitions out of it (a wildcard source '*' includes it: "
    "list the sources instead)",
    "SM002": "add a transition whose dest is the state, or remove the state",
    "SM004": "add a transition from the state, or declare it final: {'name': ..., 'final': True}",
    "SM005": "add a transition from the listed states towards a final state",
}


def _quoted(files: Sequence[str], *names: str) -> Location | None:
    """The first line quoting every one of ``names``."""
    if not files:
        return None
    ahead = "".join(rf"""(?=.*['"]{re.escape(n)}['"])""" for n in names)
    return first_line(files, re.compile(ahead))


def transitions_graph(value: object, files: Sequence[str] = ()) -> MachineGraph | str:
    """Read a ``transitions.Machine``; ``files`` are searched for the lines that name states and triggers.

    Example:
        >>> from transitions import Machine
        >>> m = Machine(states=["solid", {"name": "gas", "final": True}], initial="solid",
        ...             transitions=[["boil", "solid", "gas"]])
        >>> g = transitions_graph(m)
        >>> g.initial, g.terminals, [(r.source, r.event, r.target) for r in g.rows]
        ('solid', ('gas',), [('solid', 'boil', 'gas')])
    """
    if not isinstance(value, Machine):
        return f"a transitions {kind_of(value)} is not a Machine"
    if isinstance(value, HierarchicalMachine):
        return f"the {kind_of(value)} has nested states, which are not read"
    names = [str(n) for n in value.states]
    automatic = {f"to_{n}" for n in names} if value.auto_transitions else set()
    rows: list[Row] = []
    for trigger, event in value.events.items():
        if trigger in automatic:
            continue
        for source, transitions in event.transitions.items():
            for transition in transitions:
                if transition.dest is None:
                    continue
                dest = str(transition.dest)
                rows.append(
                    Row(
                        source=str(source),
                        event=trigger,
                        target=dest,
                        source_declared=str(source) in names,
                        target_declared=dest in names,
                        location=_quoted(files, trigger, dest) or _quoted(files, trigger),
                    )
                )
    finals = {n for n, s in value.states.items() if getattr(s, "final", False)}
    sources = {r.source for r in rows}
    terminals = finals or {n for n in names if n not in sources}
    nodes = [
        Node(
            name=n,
            terminal=n in terminals,
            emits=frozenset(r.event for r in rows if r.source == n),
            location=_quoted(files, n),
        )
        for n in names
    ]
    own = type(value) is not Machine and type(value).__module__.partition(".")[0] != "transitions"
    return assemble_graph(
        framework=FRAMEWORK,
        name=type(value).__name__,
        nodes=nodes,
        initial=str(value.initial),
        rows=rows,
        applicable=APPLICABLE,
        hints=HINTS,
        terms=TERMS,
        origin=class_location(type(value)) if own else first_line(files, re.compile(r"Machine\(")),
    )
