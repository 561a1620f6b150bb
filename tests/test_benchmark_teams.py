"""benchmarks/teams.py runs in quick mode on SQLite and prints its figures (no timing asserted here).

Its PostgreSQL figure (a fan-out of 1,000 children served by three workers) is measured by running
the benchmark; tests/teams/test_crash.py runs the same workers over a fan-out of 50.
"""

from __future__ import annotations

import pytest

from tests.test_benchmarks import load_benchmark


def test_a_quick_run_prints_the_child_against_embedded_and_the_fixed_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_benchmark("teams")
    assert bench.main(["--quick", "--no-postgres"]) == 0
    out = capsys.readouterr().out
    assert "SQLite, a child of 20 effects: as a child run" in out and "(target <= 1.5)" in out
    assert "the fixed cost of a child" in out
    assert "SQLite transactions per parent: a child of no effects 3 (embedded 1)" in out
    assert "  1. the parent's wait" in out and "  3. the parent's end" in out


def test_every_parent_of_the_benchmark_ends_with_its_childs_work() -> None:
    bench = load_benchmark("teams")
    side = bench.side
    for parent in (side.AS_CHILD, side.EMBEDDED):
        assert bench.per_parent(parent, 2) > 0
    assert side.TWENTY_MACHINE.name == "bench-child" and side.EFFECTS == 20
