"""The live view prints each transition and effect as it happens, with durations (captured output)."""

from __future__ import annotations

import asyncio
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from agentsm_fn import SUSPEND, Performers, Shell, StepClock, run
from agentsm_fn.live import LiveView
from tests.core.sample import Ask, Mem, sample_machine
from tests.otel.agents import approval_agent, parallel_agent

ROOT = Path(__file__).resolve().parents[2]
_TIMES = re.compile(r"\+\d+\.\d{3}s|\d+ ms|\d+\.\d{2} s")


def _view(terminal: bool = False) -> tuple[LiveView, io.StringIO]:
    out = io.StringIO()
    return LiveView(Console(file=out, width=200, force_terminal=terminal, color_system=None)), out


def _lines(out: io.StringIO) -> list[str]:
    """Printed lines with times replaced by T."""
    return [_TIMES.sub("T", line.rstrip()) for line in out.getvalue().splitlines()]


def test_a_user_machine_shows_every_transition_and_effect_in_order() -> None:
    view, out = _view()
    answers = iter([1, 2, 3])
    run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: next(answers)), StepClock(), view))
    assert _lines(out) == [
        "▶ sample  started",
        "  T  #1  IDLE --START--> WORK",
        "  T  →   Ask",
        "  T  ✓   Ask  T  int",
        "  T  #2  WORK --MORE--> WORK",
        "  T  →   Ask",
        "  T  ✓   Ask  T  int",
        "  T  #3  WORK --MORE--> WORK",
        "  T  →   Ask",
        "  T  ✓   Ask  T  int",
        "  T  #4  WORK --MORE--> WORK",
        "  T  #5  WORK --FINISHED--> DONE",
        "■ finished in DONE after 5 transitions (T)",
    ]


def test_the_react_agent_shows_llm_calls_tool_batches_and_their_parts() -> None:
    view, out = _view()
    assert parallel_agent(view).run().unwrap() is not None
    lines = _lines(out)
    assert lines[:4] == [
        "▶ react  started",
        "  T  #1  Idle --Start--> Planning",
        "  T  →   LlmCall plan model='m' messages=2 tools=2",
        "  T  ✓   LlmCall plan model='m' messages=2 tools=2  T  2 tool calls, 120 in / 30 out tokens",
    ]
    parts = sorted(line for line in lines if line.startswith("  T  ✓     RunTool"))
    assert parts == ["  T  ✓     RunTool search  T  ok", "  T  ✓     RunTool weather  T  ok"]
    assert "  T  ✓   RunToolBatch search, weather  T  2 results" in lines
    assert lines[-1] == "■ finished in Done after 5 transitions (T)"


def test_a_failure_and_a_suspension_are_shown_as_such() -> None:
    view, out = _view()

    def boom(_effect: Ask) -> int:
        raise ValueError("no numbers")

    run(sample_machine(), Mem(), Shell(Performers().on(Ask, boom), StepClock(), view))
    assert _lines(out)[-2:] == [
        "  T  ✗   Ask  T  raised ValueError: no numbers",
        "✗ failed: could not perform Ask in state WORK: performer raised ValueError: no numbers (T)",
    ]
    view, out = _view()
    asyncio.run(approval_agent(view).arun())
    assert _lines(out)[-2:] == [
        "  T  ⏸   AskHuman refund  T  suspended",
        "⏸ suspended, awaiting AskHuman (T)",
    ]
    view, out = _view()
    run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock(), view))
    assert _lines(out)[-1] == "⏸ suspended, awaiting Ask (T)"


def test_a_raising_performer_is_shown_without_the_credential_it_quoted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    monkeypatch.setenv("PAYMENTS_API_KEY", key)
    view, out = _view()

    def refuse(_effect: Ask) -> int:
        raise PermissionError(f"card API said 401 for key {key}")

    run(sample_machine(), Mem(), Shell(Performers().on(Ask, refuse), StepClock(), view))
    assert key not in out.getvalue()
    assert "  T  ✗   Ask  T  raised PermissionError: card API said 401 for key [redacted]" in _lines(out)


def test_on_a_terminal_a_spinner_stands_in_for_the_running_effect() -> None:
    view, out = _view(terminal=True)
    answers = iter([1, 2, 3])
    run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: next(answers)), StepClock(), view))
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "→   Ask" not in text  # the spinner replaced the start line
    assert text.count("✓   Ask") == 3 and "■ finished in DONE after 5 transitions" in text


def test_text_from_models_and_tools_is_not_markup() -> None:
    view, out = _view()
    answers = iter([1, 2, 3])
    shell = Shell(Performers().on(Ask, lambda _e: next(answers)), StepClock(), view)
    run(sample_machine().extend(name="[bold]not markup[/bold]"), Mem(), shell)
    assert _lines(out)[0] == "▶ [bold]not markup[/bold]  started"


def test_the_demo_watches_its_run() -> None:
    demo = ROOT / "examples" / "multi_tool_agent.py"
    done = subprocess.run(
        [sys.executable, str(demo), "--offline", "--watch"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    lines = [_TIMES.sub("T", line.rstrip()) for line in done.stdout.splitlines()]
    assert "▶ react  started" in lines
    assert "  T  #2  Planning --ToolBlacklisted--> Planning" in lines
    assert "  T  ✓   RunToolBatch search, search  T  2 results" in lines
    assert "■ finished in Done after 10 transitions (T)" in lines
    assert lines.index("■ finished in Done after 10 transitions (T)") < lines.index("=== FINAL ANSWER ===")
