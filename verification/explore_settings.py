"""The ``[[tool.agentsm_fn.explore]]`` tables of pyproject.toml: what ``agentsm-verify --explore`` explores.

One table per exploration; every value but the numbers names a ``MODULE:ATTRIBUTE`` (or
``path/to/file.py:ATTRIBUTE``), the same arguments :func:`verification.explore.explore` takes::

    [[tool.agentsm_fn.explore]]
    machine = "examples/durable_orders.py:ORDER_MACHINE"
    starts = "examples/explore_orders.py:STARTS"          # an iterable of start memories
    outcomes = "examples/explore_orders.py:OUTCOMES"      # optional: an Outcomes registry
    invariants = "examples/explore_orders.py:INVARIANTS"  # optional
    properties = "examples/explore_orders.py:PROPERTIES"  # optional: run properties
    key = "mypkg.explore:key"                             # optional: memory -> what matters
    budget = "mypkg.explore:budget"                       # optional: the kit's budget
    entries = "mypkg.explore:ENTRIES"                     # optional: (state, memory) starts elsewhere
    accept_failure = "mypkg.explore:accepted"             # optional: engine failures that end a run
    depth = 30                                            # optional: most transitions a run takes
    max_states = 1_000_000                                # optional: stop after this many states

Read without importing anything (the explorer needs the ``kit`` extra; the verifier does not).

The explorer builds on the kit, which builds on the verifier, so the verifier's command line
cannot import it: ``verification.explore`` registers its command in the ``agentsm_fn.verify``
entry-point group (pyproject.toml), and :func:`explore_command` finds it there. The command's
shape, :data:`ExploreCommand`, is declared here, below both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Protocol, cast

import attrs

__all__ = ["ExploreCommand", "ExploreReport", "ExploreSettings", "explore_command", "parse_explore"]

ENTRY_POINTS = "agentsm_fn.verify"
"""The entry-point group where ``verification.explore`` registers its command as ``explore``."""

_SPECS = (
    "machine",
    "starts",
    "outcomes",
    "invariants",
    "properties",
    "key",
    "budget",
    "entries",
    "accept_failure",
)
_NUMBERS = ("depth", "max_states")


@attrs.frozen(kw_only=True)
class ExploreSettings:
    """One exploration as ``[[tool.agentsm_fn.explore]]`` declares it (specs not yet imported).

    Example:
        >>> ExploreSettings(machine="m:M", starts="m:STARTS").depth is None
        True
    """

    machine: str
    starts: str
    outcomes: str | None = None
    invariants: str | None = None
    properties: str | None = None
    key: str | None = None
    budget: str | None = None
    entries: str | None = None
    accept_failure: str | None = None
    depth: int | None = None
    max_states: int | None = None


def parse_explore(value: object, problems: list[str]) -> tuple[ExploreSettings, ...]:
    """Read the ``explore`` array of tables; add each problem to ``problems``.

    Example:
        >>> found: list[str] = []
        >>> parse_explore([{"machine": "m:M", "starts": "m:S", "depth": 3}], found)[0].depth, found
        (3, [])
        >>> _ = parse_explore([{"machine": "m:M", "depth": "deep"}], found); found
        ['explore #1 needs starts = "MODULE:ATTRIBUTE"', 'explore #1: depth must be a positive integer']
    """
    if not isinstance(value, list):
        problems.append("explore must be an array of tables ([[tool.agentsm_fn.explore]])")
        return ()
    found: list[ExploreSettings] = []
    for n, item in enumerate(value, start=1):
        where = f"explore #{n}"
        if not isinstance(item, dict):
            problems.append(f"{where} must be a table")
            continue
        before = len(problems)
        problems.extend(f"{where}: unknown key {k}" for k in item if k not in (*_SPECS, *_NUMBERS))
        for required in ("machine", "starts"):
            if not isinstance(item.get(required), str):
                problems.append(f'{where} needs {required} = "MODULE:ATTRIBUTE"')
        for name in _SPECS:
            spec = item.get(name)
            if spec is not None and (not isinstance(spec, str) or ":" not in spec):
                problems.append(f'{where}: {name} must be "MODULE:ATTRIBUTE"')
        for name in _NUMBERS:
            number = item.get(name)
            if number is not None and (isinstance(number, bool) or not isinstance(number, int) or number < 1):
                problems.append(f"{where}: {name} must be a positive integer")
        if len(problems) == before:
            found.append(ExploreSettings(**{k: v for k, v in item.items()}))
    return tuple(found)


class ExploreReport(Protocol):
    """What the explore command returns: the report, whether every rule held, the errors."""

    @property
    def text(self) -> str: ...
    @property
    def ok(self) -> bool: ...
    @property
    def errors(self) -> tuple[str, ...]: ...


ExploreCommand = Callable[[Sequence[ExploreSettings], Sequence[str]], ExploreReport]
"""Run explorations (only those of the named machines, when any are named)."""


def explore_command() -> ExploreCommand | str:
    """The explore command registered by ``verification.explore``, or why it cannot be had.

    Example:
        >>> callable(explore_command())  # installed with the kit extra, as in this project
        True
    """
    found = [ep for ep in entry_points(group=ENTRY_POINTS) if ep.name == "explore"]
    if not found:
        return f"no explore command in the {ENTRY_POINTS} entry points: reinstall agentsm-fn"
    try:
        return cast(ExploreCommand, found[0].load())
    except ImportError as exc:
        return f"--explore needs the kit extra (pip install agentsm-fn[kit]): {exc}"
