"""Coverage of generated runs: states, transitions (rows) and transition pairs hit.

A :class:`CoverageRecorder` collects what runs hit (the derived state machine
feeds it); :meth:`CoverageRecorder.report` freezes that into a
:class:`CoverageReport`, which compares it with the rows reachable from the
initial state, prints a summary, and gates a test with
:meth:`CoverageReport.require_all_transitions` (raises :class:`CoverageGap`, an
``AssertionError``, naming every row no run took).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

import attrs

from agentsm_fn.core.machine import Machine
from verification.kit._graph import reachable_rows

__all__ = ["CoverageGap", "CoverageRecorder", "CoverageReport", "RowName", "row_label"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

RowName = tuple[str, str, str]
"""A row by names: (source state, event, target state)."""


def row_label(row: RowName) -> str:
    """``SOURCE --EVENT--> TARGET``.

    Example:
        >>> row_label(("IDLE", "START", "PLANNING"))
        'IDLE --START--> PLANNING'
    """
    return f"{row[0]} --{row[1]}--> {row[2]}"


class CoverageGap(AssertionError):
    """Generated runs did not take every reachable row; ``missing`` names them."""

    def __init__(self, machine: str, missing: tuple[RowName, ...], summary: str) -> None:
        self.missing = missing
        listing = "\n".join(f"  - {row_label(r)}" for r in missing)
        super().__init__(
            f"{machine or 'machine'}: {len(missing)} reachable row(s) never taken:\n{listing}\n{summary}"
        )


@attrs.frozen(kw_only=True)
class CoverageReport:
    """What generated runs hit, against what the table makes reachable.

    Example:
        >>> r = CoverageReport(machine="m", runs=1, states={"A": 1}, rows={("A", "GO", "B"): 1},
        ...                    pairs={}, reachable=(("A", "GO", "B"), ("A", "NO", "C")))
        >>> r.missing, r.row_coverage
        ((('A', 'NO', 'C'),), 0.5)
    """

    machine: str
    runs: int
    states: Mapping[str, int]
    rows: Mapping[RowName, int]
    pairs: Mapping[tuple[RowName, RowName], int]
    reachable: tuple[RowName, ...]

    @property
    def missing(self) -> tuple[RowName, ...]:
        """Reachable rows no run took, in table order."""
        return tuple(r for r in self.reachable if r not in self.rows)

    @property
    def row_coverage(self) -> float:
        """The fraction of reachable rows taken (1.0 when there are none)."""
        if not self.reachable:
            return 1.0
        return (len(self.reachable) - len(self.missing)) / len(self.reachable)

    @property
    def possible_pairs(self) -> tuple[tuple[RowName, RowName], ...]:
        """Pairs of reachable rows where the second starts where the first ends."""
        return tuple((a, b) for a in self.reachable for b in self.reachable if a[2] == b[0])

    def summary(self) -> str:
        """A few lines: runs, states, rows and pairs hit, and the rows missed."""
        possible = self.possible_pairs
        hit_pairs = sum(1 for p in possible if p in self.pairs)
        taken = len(self.reachable) - len(self.missing)
        lines = [
            f"coverage of {self.machine or 'machine'} over {self.runs} run(s):",
            f"  states visited: {len(self.states)} ({', '.join(sorted(self.states))})",
            f"  transitions:    {taken}/{len(self.reachable)} reachable rows ({self.row_coverage:.0%})",
            f"  pairs:          {hit_pairs}/{len(possible)} consecutive row pairs",
        ]
        lines += [f"  missed: {row_label(r)}" for r in self.missing]
        return "\n".join(lines)

    def require_all_transitions(self) -> CoverageReport:
        """Return ``self`` when every reachable row was taken; else raise :class:`CoverageGap`.

        Example:
            >>> CoverageReport(machine="m", runs=0, states={}, rows={}, pairs={},
            ...                reachable=()).require_all_transitions().row_coverage
            1.0
        """
        if self.missing:
            raise CoverageGap(self.machine, self.missing, self.summary())
        return self


def _names(row: tuple[enum.Enum, enum.Enum, enum.Enum]) -> RowName:
    return row[0].name, row[1].name, row[2].name


class CoverageRecorder(Generic[StateT, EventT, MemoryT]):
    """Collects what runs hit. Mutable by design: it lives for one test.

    Example:
        >>> from verification._examples import ONE_STEP, S, E  # A --GO--> B, B terminal
        >>> rec = CoverageRecorder(ONE_STEP)
        >>> rec.start(S.A)
        >>> rec.took((S.A, E.GO, S.B), previous=None)
        >>> rec.report().missing
        ()
    """

    def __init__(self, machine: Machine[StateT, EventT, MemoryT]) -> None:
        self.machine = machine
        self.runs = 0
        self.states: Counter[str] = Counter()
        self.rows: Counter[RowName] = Counter()
        self.pairs: Counter[tuple[RowName, RowName]] = Counter()

    def start(self, state: StateT) -> None:
        """Record the start of a run in ``state``."""
        self.runs += 1
        self.states[state.name] += 1

    def took(
        self, row: tuple[StateT, EventT, StateT], previous: tuple[StateT, EventT, StateT] | None
    ) -> None:
        """Record a transition, and the pair it forms with the previous one of the same run."""
        name = _names(row)
        self.rows[name] += 1
        self.states[row[2].name] += 1
        if previous is not None:
            self.pairs[(_names(previous), name)] += 1

    def merge(self, others: Iterable[CoverageReport]) -> None:
        """Add the counts of earlier reports (to combine several tests into one gate)."""
        for other in others:
            self.runs += other.runs
            self.states.update(other.states)
            self.rows.update(other.rows)
            self.pairs.update(other.pairs)

    def report(self) -> CoverageReport:
        """Freeze what was recorded so far."""
        return CoverageReport(
            machine=self.machine.name,
            runs=self.runs,
            states=MappingProxyType(dict(self.states)),
            rows=MappingProxyType(dict(self.rows)),
            pairs=MappingProxyType(dict(self.pairs)),
            reachable=tuple(_names(r) for r in reachable_rows(self.machine)),
        )
