"""``agentsm-verify --explore``: run the explorations ``[[tool.agentsm_fn.explore]]`` declares.

Each table's specs are imported (:mod:`verification.explore_settings`), checked for what
:func:`~verification.explore.explore` needs (a machine, an iterable of start memories, an
``Outcomes`` registry, sequences of invariants and run properties, functions for ``key``
and ``budget``) and explored. The report is one summary line per exploration; for a broken
rule, the shortest run and a pytest test to paste that replays it. A problem with a table is
an error naming it, never a crash.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import cast

import attrs
from returns.result import Failure

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.shell.targets import import_target
from verification.explore._enumerate import NotEnumerable
from verification.explore._search import Unhashable
from verification.explore.exploration import Exploration, explore
from verification.explore_settings import ExploreSettings
from verification.kit.invariants import MemoryInvariant, TransitionInvariant
from verification.kit.outcomes import Outcomes
from verification.kit.run_properties import RunProperty
from verification.loading import load_machine

__all__ = ["Explored", "run_explorations"]

_Invariants = Sequence[MemoryInvariant[object] | TransitionInvariant[enum.Enum, object]]


@attrs.frozen
class Explored:
    """What ``--explore`` found: the report text, whether every rule held, and the errors.

    Example:
        >>> Explored("", True, ()).ok
        True
    """

    text: str
    ok: bool
    errors: tuple[str, ...]


class _Bad(Exception):
    pass


def _load(spec: str | None, what: str, check: Callable[[object], bool]) -> object:
    if spec is None:
        return None
    imported = import_target(spec)
    if isinstance(imported, Failure):
        raise _Bad(f"cannot load {spec}: {imported.failure()}")
    value = imported.unwrap().value
    if not check(value):
        raise _Bad(f"{spec} is a {type(value).__name__}, not {what}")
    return value


def _iterable(value: object) -> bool:
    return isinstance(value, Iterable)


def _sequence(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _explore(settings: ExploreSettings) -> Exploration[enum.Enum, enum.Enum, object]:
    loaded = load_machine(settings.machine)
    if isinstance(loaded, Failure):
        raise _Bad(str(loaded.failure()))
    machine: Machine[enum.Enum, enum.Enum, object] = loaded.unwrap().machine
    starts = _load(settings.starts, "an iterable of start memories", _iterable)
    outcomes = _load(settings.outcomes, "an Outcomes registry", lambda v: isinstance(v, Outcomes))
    invariants = _load(settings.invariants, "a sequence of invariants", _sequence)
    properties = _load(settings.properties, "a sequence of run properties", _sequence)
    key = _load(settings.key, "a function of memory", callable)
    budget = _load(settings.budget, "a function of memory", callable)
    entries = _load(settings.entries, "an iterable of (state, memory) pairs", _iterable)
    accept = _load(settings.accept_failure, "a function of a RunFailed", callable)
    try:
        return explore(
            machine,
            cast(Iterable[object], starts),
            cast(Outcomes | None, outcomes),
            cast(_Invariants, invariants or ()),
            properties=cast(Sequence[RunProperty[enum.Enum, object]], properties or ()),
            depth=settings.depth,
            key=cast(Callable[[object], Hashable] | None, key),
            budget=cast(Callable[[object], int] | None, budget),
            max_states=settings.max_states,
            entries=cast(Iterable[tuple[enum.Enum, object]], entries or ()),
            accept_failure=cast(Callable[[RunFailed[enum.Enum, object]], bool] | None, accept),
        )
    except (NotEnumerable, Unhashable) as exc:
        raise _Bad(f"{settings.machine}: {exc}") from None


def run_explorations(explorations: Sequence[ExploreSettings], targets: Sequence[str] = ()) -> Explored:
    """Explore each of ``explorations`` (only those of ``targets``' machines, when named).

    Example:
        >>> run_explorations([]).errors
        ('nothing explored: no [[tool.agentsm_fn.explore]] table in pyproject.toml',)
    """
    chosen = [e for e in explorations if not targets or e.machine in targets]
    if not chosen:
        # Checking nothing is never a pass: a CI step must not go green on a missing or misspelled table.
        text = "nothing explored: no [[tool.agentsm_fn.explore]] table in pyproject.toml"
        if explorations and targets:
            declared = ", ".join(e.machine for e in explorations)
            text = f"nothing explored: no table explores {', '.join(targets)} (declared: {declared})"
        return Explored(text + "\n", False, (text,))
    lines: list[str] = []
    errors: list[str] = []
    ok = True
    for settings in chosen:
        try:
            found = _explore(settings)
        except _Bad as exc:
            errors.append(str(exc))
            continue
        lines.append(found.summary())
        bad = found.counterexample
        if bad is not None:
            ok = False
            test = bad.as_test(
                settings.machine,
                invariants=settings.invariants,
                properties=settings.properties,
                budget=settings.budget,
            )
            lines += ["", "paste this test to replay it:", "", test]
    return Explored("\n".join(lines) + "\n", ok, tuple(errors))
