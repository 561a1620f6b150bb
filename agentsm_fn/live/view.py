"""The live view: each transition and effect of a run, printed as it happens, with its duration.

::

    ▶ react  started
      +0.000s  #1  Idle --Start--> Planning
      +0.000s  →   LlmCall plan model='gpt-4o' messages=2 tools=3
      +0.412s  ✓   LlmCall plan model='gpt-4o' messages=2 tools=3  412 ms  2 tool calls, 120 in / 30 out
      +0.412s  #2  Planning --LlmParallelToolCalls--> ParallelActing
      +0.413s  ✓     RunTool search (timeout 5.0s)  1 ms  ok
    ■ finished in Done after 5 transitions (0.80 s)

On a terminal a spinner with the elapsed time stands in for the ``→`` line while an
effect runs; in a pipe (or a test) every line is printed as it comes. Text from models
and tools is never interpreted as markup.
"""

from __future__ import annotations

import threading
import time

from rich.console import Console
from rich.status import Status
from rich.text import Text

from agentsm_fn.core.driver import SUSPEND
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunStart, RunWatch
from agentsm_fn.core.snapshot import Status as RunStatus
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.notes import duration, outcome_note

__all__ = ["LiveView", "duration", "outcome_note"]


class LiveView:
    """A run observer that prints to a terminal (give it to a shell, a builder or ``AgentFSM``).

    Example:
        >>> import io
        >>> from rich.console import Console
        >>> view = LiveView(Console(file=io.StringIO(), width=100))
        >>> view.console.is_terminal
        False
    """

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)

    def run_started(self, start: RunStart) -> RunWatch:
        """Print the run's first line."""
        watch = _Watch(self.console)
        resumed = " (resumed)" if start.resumed else ""
        watch.line(
            Text.assemble(
                ("▶ ", "bold"), (start.machine.name or "machine", "bold cyan"), f"  started{resumed}"
            )
        )
        return watch


class _Watch:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.since = time.perf_counter()
        self.lock = threading.Lock()
        self.running: Status | None = None

    def line(self, text: Text) -> None:
        with self.lock:
            self.console.print(text, highlight=False, soft_wrap=True)

    def stamp(self) -> str:
        return f"  +{time.perf_counter() - self.since:.3f}s  "

    def transition(self, step: int, state: object, event: object, target: object, at: float) -> None:
        names = [getattr(v, "name", str(v)) for v in (state, event, target)]
        self.line(
            Text.assemble(
                self.stamp(), (f"#{step:<3}", "dim"), f"{names[0]} --{names[1]}--> ", (names[2], "bold")
            )
        )

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        summary = describe_effect(effect.underlying())
        indent = "  " if within is not None else ""
        if within is None and self.console.is_terminal and self.running is None:
            self.running = self.console.status(Text(f"{summary} …"), spinner="dots")
            self.running.start()
        elif within is None or not self.console.is_terminal:
            self.line(Text.assemble(self.stamp(), ("→   ", "yellow"), indent + summary))
        return _EffectLine(self, summary, indent, within is None)

    def run_ended(self, end: RunEnd) -> None:
        self.stop()
        snapshot, took = end.snapshot, duration(time.perf_counter() - self.since)
        if end.reason is not None:
            self.line(Text.assemble(("✗ failed", "bold red"), f": {end.reason.describe()} ({took})"))
        elif snapshot.status is RunStatus.AWAITING:
            pending = type(snapshot.pending).__name__
            self.line(Text.assemble(("⏸ suspended", "bold yellow"), f", awaiting {pending} ({took})"))
        else:
            self.line(
                Text.assemble(
                    ("■ finished", "bold green"),
                    f" in {snapshot.state.name} after {snapshot.steps} transitions ({took})",
                )
            )

    def stop(self) -> None:
        if self.running is not None:
            self.running.stop()
            self.running = None


class _EffectLine:
    def __init__(self, watch: _Watch, summary: str, indent: str, top: bool) -> None:
        self.watch, self.summary, self.indent, self.top = watch, summary, indent, top

    def _done(self, mark: str, note: str, failed: bool, seconds: float) -> None:
        if self.top:
            self.watch.stop()
        style = "red" if failed else "green"
        self.watch.line(
            Text.assemble(
                self.watch.stamp(),
                (f"{mark}   ", style),
                self.indent + self.summary,
                (f"  {duration(seconds)}", "cyan"),
                (f"  {note}", style if failed else "dim"),
            )
        )

    def effect_ended(self, outcome: object, seconds: float) -> None:
        note, failed = outcome_note(outcome)
        self._done("⏸" if outcome is SUSPEND else "✗" if failed else "✓", note, failed, seconds)

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        self._done("✗", redact_credentials(f"raised {type(error).__qualname__}: {error}"), True, seconds)
