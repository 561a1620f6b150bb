"""The journal: every input from the world a run consumed, in order.

Two kinds of entry. A *tick* is the clock reading the shell took before running a
state's handler. An *outcome* is the result of an effect, written before the
handler sees it. Folding the journal from the same start snapshot (``replay``)
reproduces the run exactly with no IO: the journal is the run's only input.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
from pyrsistent import PVector, pvector

from agentsm_fn.core.effects import Effect

__all__ = ["Journal", "JournalEntry"]

_Row = float | tuple[float, Effect[object], object]
"""A tick is stored as its bare clock reading (one allocation fewer per step in the run
loop); an outcome as (clock reading, effect, outcome)."""


def _entry(row: _Row) -> JournalEntry:
    if not isinstance(row, tuple):  # a tick (a clock may return an int as well as a float)
        return JournalEntry(at=row)
    at, effect, outcome = row
    return JournalEntry(at=at, effect=effect, outcome=outcome)


@attrs.frozen
class JournalEntry:
    """One input: a clock reading, plus the effect and its outcome for an outcome entry.

    Example:
        >>> JournalEntry(at=2.0).is_tick
        True
    """

    at: float
    effect: Effect[object] | None = None
    outcome: object = None

    @property
    def is_tick(self) -> bool:
        """True for a clock reading before a handler ran; False for an effect outcome."""
        return self.effect is None


@attrs.frozen
class Journal:
    """An immutable, append-only sequence of :class:`JournalEntry`.

    Example:
        >>> j = Journal().tick(1.0)
        >>> len(j), j[0].is_tick
        (1, True)
    """

    rows: PVector[_Row] = attrs.field(factory=pvector, repr=lambda r: f"<{len(r)} entries>")

    def tick(self, at: float) -> Journal:
        """Return a journal with a clock reading appended."""
        return Journal(self.rows.append(float(at)))

    def outcome(self, effect: Effect[object], outcome: object, at: float) -> Journal:
        """Return a journal with an effect's outcome appended."""
        return Journal(self.rows.append((at, effect, outcome)))

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> JournalEntry:
        return _entry(self.rows[index])

    def __iter__(self) -> Iterator[JournalEntry]:
        return (_entry(row) for row in self.rows)

    @property
    def outcomes(self) -> tuple[object, ...]:
        """The effect outcomes alone, in order."""
        return tuple(entry.outcome for entry in self if entry.effect is not None)
