"""Exhaustive exploration of a machine's handlers: every run, up to a depth or to exhaustion.

:func:`explore` runs breadth first over ``(state, key(memory))`` from start memories,
feeding every effect each of its possible outcomes, checks the kit's invariants and run
properties at every edge, and returns an :class:`Exploration`: the figures, and the
shortest run that breaks a rule as a :class:`Counterexample` (replayable with the engine,
printable as a pytest test). ``agentsm-verify --explore`` runs it from ``pyproject.toml``.
"""

from verification.explore._enumerate import NotEnumerable
from verification.explore._search import Unhashable
from verification.explore.exploration import Counterexample, Exploration, explore

__all__ = ["Counterexample", "Exploration", "NotEnumerable", "Unhashable", "explore"]
