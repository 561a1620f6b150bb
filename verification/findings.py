"""What the verifier reports: properties with stable codes, violations, witnesses.

Every property has a code (``SM001``..``SM018``) that never changes meaning, a
short name, the question it answers and a default fix hint. A
:class:`PropertyViolation` names its code, the states and events involved, the shortest
witness path (a :class:`Witness`, a lasso when the problem is a loop), the source
location of the offending row or handler when it can be known, and a hint.
"""

from __future__ import annotations

import attrs

__all__ = [
    "MACHINE_CODES",
    "PROPERTIES",
    "TEAM_CODES",
    "Edge",
    "Location",
    "Property",
    "PropertyViolation",
    "Witness",
    "property_for",
]


@attrs.frozen
class Property:
    """A property the verifier proves: its stable code, name and question.

    Example:
        >>> property_for("SM009").name
        'termination'
    """

    code: str
    name: str
    question: str


PROPERTIES: tuple[Property, ...] = (
    Property("SM001", "single-initial", "the machine has exactly one declared initial state"),
    Property("SM002", "reachability", "every declared state is reachable from the initial state"),
    Property("SM003", "absorbing-terminals", "terminal states have no outgoing rows"),
    Property("SM004", "no-deadlock", "every reachable non-terminal state has an outgoing row"),
    Property("SM005", "option-to-complete", "every reachable state can reach a terminal state"),
    Property("SM006", "no-orphans", "every row's source and target are declared and have handlers"),
    Property("SM007", "no-dead-rows", "every row's event can be emitted by its source state"),
    Property("SM008", "event-completeness", "every event a state can emit has a row"),
    Property("SM009", "termination", "every cycle passes through a budgeted state"),
    Property(
        "SM010",
        "failure-handling",
        "every effectful state has a row for its failure event (taken when an effect fails)",
    ),
    Property("SM011", "passes-through", "declared policies: every path from X to Y passes through Z"),
    Property("SM012", "never-reachable", "declared policies: state S is never reachable"),
    Property("SM013", "readable-events", "every handler's events can be read or are declared"),
    Property(
        "SM014",
        "resumable-interrupts",
        "every interrupt point of a compiled LangGraph graph can be resumed (the graph has a checkpointer)",
    ),
    Property(
        "SM015",
        "guardrail-routes",
        "every guardrail's trip has somewhere to go: each action it can take has an event with a row",
    ),
    Property(
        "SM016",
        "child-terminals",
        "every outcome a delegated child can end with (each terminal state, failed, cancelled) maps to an "
        "event that has a row from the delegating state",
    ),
    Property(
        "SM017",
        "team-termination",
        "the composed graph of a team (delegations into each child and back, handoffs between agents) has "
        "no cycle without an exit: some agent can always finish",
    ),
    Property(
        "SM018",
        "nesting-depth",
        "children nest to a bounded depth: the graph of machine -> child machine has no cycle "
        "(the report gives the depth)",
    ),
)
"""Every property, in code order."""

MACHINE_CODES = frozenset(p.code for p in PROPERTIES) - {"SM014"}
"""The codes that apply to an agentsm_fn machine (SM014 is about LangGraph's interrupts)."""

TEAM_CODES = frozenset({"SM016", "SM017", "SM018"})
"""The codes about children and teams: they apply to a machine only when it delegates."""

_BY_CODE = {p.code: p for p in PROPERTIES}


def property_for(code: str) -> Property:
    """The property with ``code``; a KeyError names the known codes otherwise.

    Example:
        >>> property_for("SM002").question
        'every declared state is reachable from the initial state'
    """
    try:
        return _BY_CODE[code]
    except KeyError:
        known = ", ".join(_BY_CODE)
        raise KeyError(f"unknown property code {code!r}; known codes: {known}") from None


@attrs.frozen
class Location:
    """A place in a source file (``line`` is 1-based).

    Example:
        >>> str(Location("agents/react.py", 42))
        'agents/react.py:42'
    """

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@attrs.frozen
class Edge:
    """One transition of a path: ``source --event--> target``.

    Example:
        >>> str(Edge("IDLE", "START", "WORK"))
        'IDLE --START--> WORK'
    """

    source: str
    event: str
    target: str

    def __str__(self) -> str:
        return f"{self.source} --{self.event}--> {self.target}"


def _chain(edges: tuple[Edge, ...]) -> str:
    if not edges:
        return ""
    return edges[0].source + "".join(f" --{e.event}--> {e.target}" for e in edges)


@attrs.frozen(kw_only=True)
class Witness:
    """A path that shows a violation: ``stem`` from ``start``, then an optional ``loop``.

    A lasso (non-empty ``loop``) shows a cycle: reach its first state by the stem,
    then go round forever.

    Example:
        >>> w = Witness(start="A", stem=(Edge("A", "GO", "B"),), loop=(Edge("B", "AGAIN", "B"),))
        >>> w.render()
        'A --GO--> B, then loop: B --AGAIN--> B'
    """

    start: str
    stem: tuple[Edge, ...] = ()
    loop: tuple[Edge, ...] = ()

    def render(self) -> str:
        """The witness on one line."""
        head = _chain(self.stem) or self.start
        if not self.loop:
            return head
        return f"{head}, then loop: {_chain(self.loop)}"

    @property
    def length(self) -> int:
        """The number of transitions in the stem and the loop."""
        return len(self.stem) + len(self.loop)


@attrs.frozen(kw_only=True)
class PropertyViolation:
    """One violated property, with everything a user needs to act on it.

    Example:
        >>> v = PropertyViolation(code="SM002", message="state LOST is unreachable", states=("LOST",))
        >>> v.prop.name, v.ignored
        ('reachability', None)
    """

    code: str
    message: str
    states: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    witness: Witness | None = None
    location: Location | None = None
    hint: str = ""
    ignored: str | None = None
    """The reason the user gave for ignoring it, or None when it counts."""

    @property
    def prop(self) -> Property:
        """The property this violation breaks."""
        return property_for(self.code)

    def sort_key(self) -> tuple[str, tuple[str, ...], tuple[str, ...], str]:
        """A deterministic order: code, states, events, message."""
        return (self.code, self.states, self.events, self.message)
