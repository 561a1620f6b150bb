"""Every ReAct example runs offline (scripted LLM, no provider keys in the environment)."""

from __future__ import annotations

import functools
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@functools.cache
def _multi_tool_output() -> str:
    """The demo's output, run once for the tests that read it."""
    return _run("examples/multi_tool_agent.py", "--offline").stdout


@pytest.mark.parametrize(
    ("example", "expected"),
    [
        ("basic_agent.py", "The capital of France is Paris"),
        ("multi_tool_agent.py", "15% of Paris's 2,102,650 inhabitants is about 315,398 people."),
        ("human_approval_agent.py", "SUCCESS: email sent to team@example.com"),
    ],
)
def test_example_runs_offline(example: str, expected: str) -> None:
    done = _run(f"examples/{example}")
    assert done.returncode == 0, done.stderr
    assert "LLM: scripted" in done.stdout
    assert expected in done.stdout
    assert "Done" in done.stdout


def test_multi_tool_example_shows_blacklist_parallel_reflection_and_routing() -> None:
    out = _multi_tool_output()
    for marker in ("ToolBlacklisted", "LlmParallelToolCalls", "NeedsReflection", "[SUMMARY]"):
        assert marker in out
    assert "models per LLM call: ['scripted-small'" in out
    assert "tokens: 0 in / 0 out (the scripted LLM reports no usage)" in out


def _approval(*args: str) -> subprocess.CompletedProcess[str]:
    return _run("examples/human_approval_agent.py", "--offline", *args)


def _started(db: Path) -> str:
    first = _approval("--db", str(db), "--start")
    assert first.returncode == 0, first.stderr
    assert "paused in WaitingForHuman: send_email" in first.stdout
    return first.stdout.split("stored as run ")[1].split()[0]


def test_human_approval_example_across_three_processes(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run_id = _started(db)
    listed = _approval("--db", str(db), "--pending")
    assert listed.returncode == 0 and f"{run_id} 1 AskHuman send_email" in listed.stdout
    answered = _approval("--db", str(db), "--answer", run_id, "--decision", "modify")
    assert answered.returncode == 0, answered.stderr
    assert "SUCCESS: email sent to leads@example.com" in answered.stdout
    assert "HumanModified" in answered.stdout
    assert "Idle" in answered.stdout  # the whole trace, replayed from the journal
    assert "nothing waits" in _approval("--db", str(db), "--pending").stdout


def test_a_waiting_run_is_answered_once_so_the_approved_email_is_sent_once(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run_id = _started(db)
    first = _approval("--db", str(db), "--answer", run_id, "--decision", "approve")
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("[send_email]") == 1
    second = _approval("--db", str(db), "--answer", run_id, "--decision", "approve")
    assert second.returncode == 1
    assert "[send_email]" not in second.stdout
    assert "answered already" in second.stderr
    assert "would repeat the approved action" in second.stderr
    assert "Traceback" not in second.stderr


def test_answering_a_run_that_is_not_stored_says_so(tmp_path: Path) -> None:
    _started(tmp_path / "runs.db")
    done = _approval("--db", str(tmp_path / "runs.db"), "--answer", "nope")
    assert done.returncode == 1 and "no stored run nope" in done.stderr
    assert "would repeat" not in done.stderr and "Traceback" not in done.stderr


def test_a_mistyped_store_is_named_and_not_created(tmp_path: Path) -> None:
    typo = tmp_path / "runz.db"
    for args in (["--pending"], ["--answer", "r-1", "--decision", "approve"]):
        done = _approval("--db", str(typo), *args)
        assert done.returncode == 1 and f"no run store at {typo}" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not typo.exists()


def test_the_command_line_shows_answers_and_resumes_the_examples_runs(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    run_id = _started(tmp_path / "runs.db")
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["PYTHONPATH"] = str(ROOT)
    cli = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", db]

    def runs(*args: str) -> subprocess.CompletedProcess[str]:  # from examples/, as the docstring says
        return subprocess.run(
            [*cli, *args],
            cwd=ROOT / "examples",
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )

    shown = runs("show", run_id)
    assert shown.returncode == 0 and "HumanApprovalRequired" in shown.stdout, shown.stderr
    approved = runs("approve", run_id, "1", "--resume")
    assert approved.returncode == 0, approved.stderr
    assert "[send_email] to='team@example.com'" in approved.stdout
    assert f"{run_id}: finished after" in approved.stdout


def test_two_processes_answering_at_once_send_the_email_once(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run_id = _started(db)
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    command = [
        sys.executable,
        "examples/human_approval_agent.py",
        "--offline",
        "--db",
        str(db),
        "--answer",
        run_id,
    ]
    procs = [
        subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert sorted(proc.returncode for proc in procs) == [0, 1]
    assert sum(out.count("[send_email]") for out, _ in outputs) == 1
    assert any("answered already" in err for _, err in outputs)


def test_a_file_that_is_not_a_store_or_an_unknown_run_is_refused_without_a_traceback(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("not a database", encoding="utf-8")
    done = _approval("--db", str(notes), "--pending")
    assert done.returncode == 1
    assert "cannot open the run store" in done.stderr and "Traceback" not in done.stderr
    assert notes.read_text(encoding="utf-8") == "not a database"  # a file that is not ours is left alone
    db = tmp_path / "runs.db"
    _started(db)
    unknown = _approval("--db", str(db), "--answer", "no-such-run")
    assert unknown.returncode == 1 and "Traceback" not in unknown.stderr
    assert "[send_email]" not in unknown.stdout


def test_multi_tool_summary_counts_say_what_they_count_and_match_the_trace() -> None:
    out = _multi_tool_output()
    counts = dict(re.findall(r"^  (agent steps|transitions|effects)\s+(\d+)\s", out, re.MULTILINE))
    trace = out.split("=== TRACE ===")[1].splitlines()[3:]
    rows = [line.split() for line in trace if line.strip()]
    requests = [row for row in rows if row[3] == "request"]
    assert int(counts["transitions"]) == max(int(row[0]) for row in rows) == 10
    assert int(counts["effects"]) == len(requests) == 7
    llm_calls = sum(row[4] == "LlmCall" for row in requests)
    assert f"{llm_calls} LLM calls" in out
    plan_steps = {int(m) for m in re.findall(r"\bstep=(\d+)", out)}
    assert int(counts["agent steps"]) == max(plan_steps) == 4
    assert "Planning rounds" in out
    assert "state-machine transitions" in out
    assert "\nsteps:" not in out  # the old unlabelled count next to a 10-transition trace


def test_multi_tool_summary_names_the_blacklisted_tool_the_model_asked_for() -> None:
    out = _multi_tool_output()
    assert "refused: the model asked for 'weather', which is blacklisted" in out
    rows = [line.split() for line in out.splitlines() if "ToolBlacklisted" in line and "->" in line]
    assert [row[-2:] for row in rows] == [["step=1", "blacklisted=weather"]]


def test_docs_quote_the_refusal_row_as_the_demo_prints_it() -> None:
    out = _multi_tool_output()
    quoted = re.search(
        r"`(Planning\s+ToolBlacklisted[^`]*)`", (ROOT / "docs" / "examples.md").read_text("utf-8")
    )
    assert quoted is not None
    shown = quoted.group(1).split()
    assert any(line.split()[2:] == shown for line in out.splitlines())


def test_choose_llm_reads_the_environment_and_offline_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    choose_llm = importlib.import_module("_common").choose_llm  # examples/ is not a package

    from agentsm_fn.shell.scripted_llm import ScriptedLlm

    def script() -> ScriptedLlm:
        return ScriptedLlm([])

    assert choose_llm(False, script, env={}).name == "scripted"
    assert choose_llm(True, script, env={"OPENAI_API_KEY": "sk-test"}).name == "scripted"
    claude = choose_llm(False, script, env={"ANTHROPIC_API_KEY": "k"})
    assert (claude.name, claude.large_model, claude.small_model) == (
        "anthropic",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    )
    local = choose_llm(False, script, env={"OLLAMA_HOST": "http://127.0.0.1:1", "OLLAMA_MODEL": "qwen3"})
    assert (local.name, local.large_model, local.small_model) == ("ollama", "qwen3", "qwen3")
    first = choose_llm(False, script, env={"OPENAI_API_KEY": "sk-test", "OLLAMA_HOST": "http://x"})
    assert first.name == "openai"


def test_docs_show_the_multi_tool_counts_as_the_demo_prints_them() -> None:
    out = _multi_tool_output()
    block = (ROOT / "docs" / "examples.md").read_text(encoding="utf-8").split("=== COUNTS ===")[1]
    shown = [line for line in block.split("```")[0].splitlines() if line.strip()]
    assert len(shown) == 4
    for line in shown:
        assert line in out.splitlines()
