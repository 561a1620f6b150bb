"""The progress bar of ``agentsm-eval run``: rich's, on a terminal only (extra ``evals``), else nothing."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from agentsm_fn.evals.results import CaseRun

__all__: list[str] = []  # private to the command

Told = Callable[[int, int, CaseRun], None]


@contextlib.contextmanager
def progress_bar(enabled: bool) -> Iterator[Told | None]:
    """A callback that advances a bar (cases done of all, the last case and its result), or None.

    Example:
        >>> with progress_bar(False) as told:
        ...     told is None
        True
    """
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    try:
        from rich.console import Console  # noqa: PLC0415  # optional: the evals extra
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: PLC0415
    except ImportError:  # the evals extra is not installed: run without a bar
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    # On stderr, the terminal it checked: the report on stdout can go to a file or a pipe.
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task("cases", total=None)

        def told(done: int, total: int, run: CaseRun) -> None:
            result = "pass" if run.passed else "FAIL"
            bar.update(task, completed=done, total=total, description=f"{run.case[:24]} {result}")

        yield told
