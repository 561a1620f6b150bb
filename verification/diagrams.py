"""Diagrams of any machine: Mermaid ``stateDiagram-v2``, Graphviz DOT and a Markdown transition table.

Each takes a :class:`~verification.model.MachineGraph` (just the machine) or a
:class:`~verification.verify.Report` (the machine with its violations marked).
Marked: the initial state, terminal states, budgeted states, and from a report
the states a violation names (unreachable, deadlocked, livelocked...) and the
rows on a violation's loop or witness path, labelled with the codes.
"""

from __future__ import annotations

import re

import attrs

from verification.model import MachineGraph, Row
from verification.verify import Report

__all__ = ["Marks", "marks_of", "to_dot", "to_markdown", "to_mermaid"]

_EDGE_CODES = frozenset({"SM009", "SM005", "SM011", "SM012"})
_ROW_CODES = frozenset({"SM003", "SM006", "SM007"})


@attrs.frozen(kw_only=True)
class Marks:
    """What to highlight: state name -> codes, and ``(source, event)`` -> codes.

    Example:
        >>> Marks().states
        {}
    """

    states: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    rows: dict[tuple[str, str], tuple[str, ...]] = attrs.field(factory=dict)


def _add(target: dict[str, tuple[str, ...]], key: str, code: str) -> None:
    if code not in target.get(key, ()):
        target[key] = (*target.get(key, ()), code)


def _add_row(target: dict[tuple[str, str], tuple[str, ...]], key: tuple[str, str], code: str) -> None:
    if code not in target.get(key, ()):
        target[key] = (*target.get(key, ()), code)


def marks_of(subject: Report | MachineGraph) -> tuple[MachineGraph, Marks]:
    """The model of ``subject`` and what its counted violations mark.

    Example:
        >>> from verification.verify import verify
        >>> from verification._examples import RETRY  # A --GO--> B, A --AGAIN--> A; A budgeted
        >>> unbounded = RETRY.extend(budgeted=())  # the same loop with no budget: SM009
        >>> marks_of(verify(unbounded))[1].rows
        {('A', 'AGAIN'): ('SM009',)}
    """
    if isinstance(subject, MachineGraph):
        return subject, Marks()
    marks = Marks()
    for v in subject.counted:
        for state in v.states:
            _add(marks.states, state, v.code)
        if v.witness is not None:
            path = v.witness.loop if v.witness.loop else (v.witness.stem if v.code in _EDGE_CODES else ())
            for e in path:
                _add_row(marks.rows, (e.source, e.event), v.code)
        if v.code in _ROW_CODES and len(v.states) >= 1:
            for event in v.events:
                _add_row(marks.rows, (v.states[0], event), v.code)
    return subject.model, marks


def _ident(name: str) -> str:
    return re.sub(r"\W", "_", name)


def to_mermaid(subject: Report | MachineGraph) -> str:
    """A Mermaid ``stateDiagram-v2`` of the machine, with marks.

    Example:
        >>> from verification.model import graph_of
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> print(to_mermaid(graph_of(ONE_STEP)))
        stateDiagram-v2
            [*] --> A
            A --> B: GO
            B --> [*]
            classDef terminal fill:#d9f2d9,stroke:#2e7d32
            classDef budgeted fill:#fff3c4,stroke:#b8860b
            classDef violation fill:#fde0e0,stroke:#c62828,stroke-width:2px
            class B terminal
        <BLANKLINE>
    """
    model, marks = marks_of(subject)
    lines = ["stateDiagram-v2"]
    names = [s.name for s in model.states] + [n for n in model.nodes if n not in model.by_name]
    for name in names:
        info = model.by_name.get(name)
        tags = [t for t, on in (("budgeted", info and info.budgeted),) if on]
        tags += list(marks.states.get(name, ()))
        if name != _ident(name) or tags:
            label = name + (f" [{', '.join(tags)}]" if tags else "")
            lines.append(f'    state "{label}" as {_ident(name)}')
    lines.append(f"    [*] --> {_ident(model.initial)}")
    for row in model.rows:
        codes = marks.rows.get((row.source, row.event), ())
        label = row.event + (f" !{','.join(codes)}" if codes else "")
        lines.append(f"    {_ident(row.source)} --> {_ident(row.target)}: {label}")
    lines.extend(f"    {_ident(t)} --> [*]" for t in model.terminals)
    lines += [
        "    classDef terminal fill:#d9f2d9,stroke:#2e7d32",
        "    classDef budgeted fill:#fff3c4,stroke:#b8860b",
        "    classDef violation fill:#fde0e0,stroke:#c62828,stroke-width:2px",
    ]
    flagged = [n for n in names if n in marks.states]
    for cls, members in (
        ("terminal", [t for t in model.terminals if t not in marks.states]),
        ("budgeted", [b for b in model.budgeted if b not in marks.states]),
        ("violation", flagged),
    ):
        if members:
            lines.append(f"    class {','.join(_ident(m) for m in members)} {cls}")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def to_dot(subject: Report | MachineGraph) -> str:
    """A Graphviz DOT digraph of the machine, with marks.

    Example:
        >>> from verification.model import graph_of
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> print(to_dot(graph_of(ONE_STEP)).splitlines()[-2])
          "A" -> "B" [label="GO"];
    """
    model, marks = marks_of(subject)
    lines = [
        f"digraph {_q(model.name or 'machine')} {{",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded"];',
        '  "__start" [shape=point, label=""];',
        f'  "__start" -> {_q(model.initial)};',
    ]
    names = [s.name for s in model.states] + [n for n in model.nodes if n not in model.by_name]
    for name in names:
        info = model.by_name.get(name)
        attributes: list[str] = []
        notes: list[str] = []
        if info is None:
            attributes.append('style="rounded,dashed"')
            notes.append("undeclared")
        elif info.terminal:
            attributes.append("peripheries=2")
        if info is not None and info.budgeted:
            attributes += ['style="rounded,filled"', 'fillcolor="#fff3c4"']
            notes.append("budgeted")
        codes = marks.states.get(name, ())
        if codes:
            attributes += ["color=red", "fontcolor=red", "penwidth=2"]
            notes.extend(codes)
        label = name + (f"\n({', '.join(notes)})" if notes else "")
        attributes.insert(0, f"label={_q(label)}")
        lines.append(f"  {_q(name)} [{', '.join(attributes)}];")
    for row in model.rows:
        codes = marks.rows.get((row.source, row.event), ())
        extra = f", color=red, fontcolor=red, penwidth=2, xlabel={_q(','.join(codes))}" if codes else ""
        lines.append(f"  {_q(row.source)} -> {_q(row.target)} [label={_q(row.event)}{extra}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _flags(model: MachineGraph, name: str) -> str:
    info = model.by_name.get(name)
    flags = []
    if name == model.initial:
        flags.append("initial")
    if info is None:
        flags.append("undeclared")
    else:
        flags += [f for f, on in (("terminal", info.terminal), ("budgeted", info.budgeted)) if on]
    return ", ".join(flags)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(subject: Report | MachineGraph) -> str:
    """A Markdown transition table (one row per table row), with marks in the last column.

    Example:
        >>> from verification.model import graph_of
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> print(to_markdown(graph_of(ONE_STEP)).splitlines()[2])
        | A (initial) | GO | B (terminal) |  |
    """
    model, marks = marks_of(subject)

    def state(name: str) -> str:
        flags = _flags(model, name)
        return _cell(name + (f" ({flags})" if flags else ""))

    lines = ["| State | Event | Next | Findings |", "| --- | --- | --- | --- |"]
    for row in model.rows:
        lines.append(
            f"| {state(row.source)} | {_cell(row.event)} | {state(row.target)} | {_findings(marks, row)} |"
        )
    return "\n".join(lines) + "\n"


def _findings(marks: Marks, row: Row) -> str:
    return ", ".join(marks.rows.get((row.source, row.event), ()))
