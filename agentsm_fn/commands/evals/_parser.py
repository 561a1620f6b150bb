"""The arguments of ``agentsm-eval`` and its exit codes (each means one thing)."""

from __future__ import annotations

import argparse
import enum

__all__: list[str] = []  # private to the command


class Exit(enum.IntEnum):
    """The exit codes of ``agentsm-eval``: each means one thing (a merge gate reads them)."""

    OK = 0
    """Every gate passed (or none was asked for)."""
    BELOW = 1
    """The experiment's mean score is under ``--fail-under``."""
    USAGE = 2
    """Bad command line (argparse's own code)."""
    NOT_FOUND = 3
    """The durable program cannot be imported, or a named experiment is not in the store."""
    DATASET = 4
    """The dataset file cannot be read, breaks the schema, or a case's input does not fit the program."""
    STORE = 5
    """The store failed."""
    REGRESSED = 6
    """A case regressed against ``--baseline`` (checked before ``--fail-under``)."""
    REFUSED = 7
    """The store holds an experiment of this name for another program or machine."""


_EXITS = "; ".join(f"{e.value} {(e.__doc__ or '').strip().rstrip('.')}" for e in Exit)


def parser() -> argparse.ArgumentParser:
    """The command line: ``run``, ``compare``, ``report``, ``list``.

    Example:
        >>> args = parser().parse_args(["run", "cases.yaml", "app:AGENT", "--fail-under", "0.8"])
        >>> args.command, args.fail_under, args.repeats
        ('run', 0.8, 1)
    """
    top = argparse.ArgumentParser(
        prog="agentsm-eval",
        description="Run a dataset of cases against a durable program, judge every run, compare experiments.",
        epilog=f"exit codes: {_EXITS}",
    )
    top.add_argument(
        "--db",
        help="the run store: a SQLite file or a postgresql:// connection string "
        "(default: $AGENTSM_RUNS_DB or runs.db); created if missing",
    )
    commands = top.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run every case (resuming an interrupted run), judge, report, gate")
    run.add_argument("dataset", help="the dataset file (JSON or YAML, docs/evals.md)")
    run.add_argument("durable", help="the durable program as module:ATTRIBUTE (a Durable, or a Subject)")
    run.add_argument("--name", help="the experiment's name (default: the dataset's name)")
    run.add_argument("--repeats", type=int, default=1, help="runs per case (default 1)")
    run.add_argument("--concurrency", type=int, default=4, help="runs at once (default 4)")
    run.add_argument(
        "--baseline", help="an experiment in the store to compare with: a regression fails (exit 6)"
    )
    run.add_argument("--fail-under", type=float, help="fail (exit 1) when the mean score is under this")
    run.add_argument("--json", help="write the report as JSON to this file")
    run.add_argument("--junit", help="write the report as JUnit XML to this file")
    run.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    run.add_argument("--coverage", action="store_true", help="print the machine's coverage by the cases")
    compare = commands.add_parser("compare", help="compare two stored experiments case by case")
    compare.add_argument("baseline")
    compare.add_argument("candidate")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    report = commands.add_parser("report", help="report a stored experiment")
    report.add_argument("name")
    report.add_argument("--format", choices=("table", "json", "junit"), default="table")
    commands.add_parser("list", help="list the stored experiments")
    return top
