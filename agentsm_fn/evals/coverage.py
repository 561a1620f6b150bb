"""Coverage of the machine by an experiment: the rows and failure routes its runs took, and what none reached.

The kit's :class:`~verification.kit.CoverageRecorder` is fed every case run's trace (its rows,
from the stored run), so the report is the kit's :class:`~verification.kit.CoverageReport`:
states and rows taken, consecutive pairs, and the reachable rows no case took. Failure routes
are the rows a state's ``failure_event`` takes when an effect fails; the experiment says
which of them some case took, and how many effect failures its runs met.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

import attrs

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.llm.json import JsonValue
from verification.kit.coverage import CoverageRecorder, CoverageReport, RowName, row_label

__all__ = ["MachineCoverage", "machine_coverage"]


@attrs.frozen(kw_only=True)
class MachineCoverage:
    """What an experiment's runs exercised of the machine: the kit's report, and its failure routes."""

    report: CoverageReport
    failure_routes: tuple[RowName, ...]
    effect_failures: int

    @property
    def failure_routes_taken(self) -> tuple[RowName, ...]:
        """The failure routes some case's run took."""
        return tuple(r for r in self.failure_routes if r in self.report.rows)

    def summary(self) -> str:
        """The kit's summary, then the failure routes taken and missed."""
        taken = self.failure_routes_taken
        lines = [
            self.report.summary(),
            f"  failure routes: {len(taken)}/{len(self.failure_routes)} taken, "
            f"{self.effect_failures} effect failure(s) met",
        ]
        lines += [
            f"  failure route never taken: {row_label(r)}" for r in self.failure_routes if r not in taken
        ]
        return "\n".join(lines)

    def to_json(self) -> dict[str, JsonValue]:
        """Rows taken (with counts), rows missed, failure routes taken and missed."""
        return {
            "machine": self.report.machine,
            "runs": self.report.runs,
            "row_coverage": self.report.row_coverage,
            "rows": [{"row": row_label(r), "taken": n} for r, n in sorted(self.report.rows.items())],
            "missed": [row_label(r) for r in self.report.missing],
            "failure_routes": [row_label(r) for r in self.failure_routes],
            "failure_routes_taken": [row_label(r) for r in self.failure_routes_taken],
            "effect_failures": self.effect_failures,
        }


def _failure_routes(machine: Machine[Any, Any, Any]) -> tuple[RowName, ...]:
    routes: list[RowName] = []
    for state, handler in machine.handlers.items():
        event = handler.failure_event
        target = None if event is None else machine.table.get((state, event))
        if event is not None and target is not None:
            routes.append((state.name, event.name, target.name))
    return tuple(routes)


def machine_coverage(
    machine: Machine[Any, Any, Any], snapshots: Iterable[Snapshot[Any, Any]]
) -> MachineCoverage:
    """The coverage of ``machine`` by runs that stopped at ``snapshots`` (their traces and journals).

    Example:
        >>> from agentsm_fn.evals.judge import JUDGE_MACHINE, JudgeState
        >>> machine_coverage(JUDGE_MACHINE, []).report.missing
        (('ASKING', 'GRADED', 'DONE'),)
    """
    recorder: CoverageRecorder[enum.Enum, enum.Enum, object] = CoverageRecorder(machine)
    failures = 0
    for snapshot in snapshots:
        recorder.start(machine.initial)
        previous = None
        for entry in snapshot.trace:
            if not entry.target:  # an effect's request, not a transition
                continue
            row = (machine.states[entry.state], machine.events[entry.event], machine.states[entry.target])
            recorder.took(row, previous)
            previous = row
        failures += sum(isinstance(e.outcome, EffectFailure) for e in snapshot.journal)
    return MachineCoverage(
        report=recorder.report(), failure_routes=_failure_routes(machine), effect_failures=failures
    )
