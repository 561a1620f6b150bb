"""verification: prove properties of any agentsm_fn machine's transition graph before it runs.

Read a machine into a graph (:func:`graph_of`), prove every property in one run
(:func:`verify`), and render the :class:`Report` as text, JSON or SARIF, or the
machine as a Mermaid, Graphviz or Markdown diagram. ``agentsm-verify`` (and
``python -m verification``) is the command line and pre-commit hook.

Properties (stable codes): SM001 single initial state, SM002 reachability,
SM003 absorbing terminals, SM004 no deadlock, SM005 option to complete (dead
ends and livelocks), SM006 no orphan rows, SM007 no dead rows, SM008 event
completeness, SM009 termination (every cycle through a budgeted state), SM010
failure handling, SM011/SM012 declared policies, SM013 readable events, SM014
resumable interrupts (LangGraph), SM015 guardrail routes (every guardrail's trip has a
row), SM016 child terminals (every way a delegated child ends has a row in its parent), SM017
team termination (a team's composed graph cannot cycle without an exit) and SM018 nesting
depth (no recursion among children; the depth is reported). :func:`verify_team` verifies a
team of agents. Besides agentsm_fn machines it reads LangGraph,
python-statemachine and transitions graphs (:mod:`verification.foreign`).

Only this package imports networkx; ``import agentsm_fn`` never does.
"""

from verification.bound import StepBound
from verification.diagrams import to_dot, to_markdown, to_mermaid
from verification.events import EventReading, emittable_events, read_events
from verification.findings import (
    PROPERTIES,
    Edge,
    Location,
    Property,
    PropertyViolation,
    Witness,
    property_for,
)
from verification.foreign import FRAMEWORKS, foreign_graph
from verification.model import MachineGraph, Row, StateInfo, graph_of
from verification.nesting import Nesting
from verification.policies import NeverReachable, PassesThrough, PathPolicy, PolicyError
from verification.report_json import render_json
from verification.report_sarif import render_sarif
from verification.report_text import render_text, summary_line
from verification.team import verify_team
from verification.verify import Ignore, Report, Verdict, step_bound, verify, verify_graph

# The property-testing kit (verification.kit) will ask the lead to add its public names here.
__all__ = [
    "Edge",
    "EventReading",
    "FRAMEWORKS",
    "Ignore",
    "Location",
    "MachineGraph",
    "Nesting",
    "NeverReachable",
    "PROPERTIES",
    "PassesThrough",
    "PathPolicy",
    "PolicyError",
    "Property",
    "PropertyViolation",
    "Report",
    "Row",
    "StateInfo",
    "StepBound",
    "Verdict",
    "Witness",
    "emittable_events",
    "foreign_graph",
    "graph_of",
    "property_for",
    "read_events",
    "render_json",
    "render_sarif",
    "render_text",
    "step_bound",
    "summary_line",
    "to_dot",
    "to_markdown",
    "to_mermaid",
    "verify",
    "verify_graph",
    "verify_team",
]
