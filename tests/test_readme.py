"""The README stays true: its composition example runs and prints what it says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["bash scripts/dev.sh demo", "bash scripts/dev.sh test"]


def test_the_composition_example_runs_as_printed() -> None:
    block = next(b for b in python_blocks() if "define_machine(" in b)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})
    first_line = out.getvalue().splitlines()[0]
    assert first_line == "St.ESCALATED ('received',)"


def _block_with(marker: str) -> str:
    return next(b for b in python_blocks() if marker in b)


def test_the_react_example_runs_with_a_scripted_llm_in_place_of_openai() -> None:
    from agentsm_fn.llm import LlmReply, ToolCall
    from agentsm_fn.shell.scripted_llm import ScriptedLlm

    block = _block_with("AgentBuilder.new(")
    assert 'openai_provider("gpt-4o")' in block
    script = ScriptedLlm(
        [
            LlmReply(tool_calls=(ToolCall(id="c1", name="search", arguments={"query": "Paris population"}),)),
            LlmReply(content="About 315,398 people, 15% of 2,102,650."),
        ]
    )
    namespace: dict[str, object] = {"__name__": "readme_react", "_scripted": script}
    source = block.replace('openai_provider("gpt-4o")', "_scripted")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(README), "exec"), namespace)
    assert out.getvalue().startswith("About 315,398 people")
    assert script.call_count == 2


def test_the_plan_execute_example_runs_with_a_scripted_llm_in_place_of_ollama() -> None:
    from agentsm_fn.llm import LlmReply
    from agentsm_fn.shell.scripted_llm import ScriptedLlm

    block = _block_with("AgentFSM(")
    assert 'ollama_provider("llama3.2")' in block
    plan = '{"goal": "pick a PDF library", "required_capabilities": ["search"], "initial_steps": ["search"]}'
    script = ScriptedLlm([LlmReply(content=plan), LlmReply(content="Prawn is the usual choice.")])

    def search(query: str) -> str:
        return f"results for {query}"

    namespace: dict[str, object] = {"__name__": "readme_plan", "_scripted": script, "search": search}
    exec(compile(block.replace('ollama_provider("llama3.2")', "_scripted"), str(README), "exec"), namespace)
    result = namespace["result"]
    assert "Prawn" in repr(result)
    assert script.call_count >= 2


def test_the_pause_and_replay_example_runs_against_the_refund_example(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(README.parent / "examples"))
    block = _block_with("resume_run(")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "readme_pause"})
    assert out.getvalue().startswith("could not perform AskManager amount=250 in state ASK_MANAGER")


def test_the_mcp_example_runs_against_the_reference_server_with_a_scripted_llm() -> None:
    from agentsm_fn.llm import LlmReply, ToolCall
    from agentsm_fn.shell.scripted_llm import ScriptedLlm
    from tests.mcp.conftest import require_everything

    block = _block_with("McpClient.stdio(")
    npx = '"npx", "-y", "@modelcontextprotocol/server-everything"'
    assert npx in block and 'openai_provider("gpt-4o-mini")' in block
    command = ", ".join(
        repr(part) for part in require_everything()
    )  # the installed server, not npx (offline)
    script = ScriptedLlm(
        [
            LlmReply(
                tool_calls=(ToolCall(id="c1", name="everything_get-sum", arguments={"a": 19, "b": 23}),)
            ),
            LlmReply(content="19 + 23 = 42, said the reference server."),
        ]
    )
    source = block.replace(npx, command).replace('openai_provider("gpt-4o-mini")', "_scripted")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(README), "exec"), {"__name__": "readme_mcp", "_scripted": script})
    assert out.getvalue() == "19 + 23 = 42, said the reference server.\n"
    assert "The sum of 19 and 23 is 42." in str(script.requests[1].messages)


def test_the_durable_examples_run_as_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = README.parent / "examples"
    (tmp_path / "durable_orders.py").symlink_to(examples / "durable_orders.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    blocks = [_block_with("recover(store"), _block_with('"approve", "o-7"'), _block_with("check_runs(")]
    namespace: dict[str, object] = {"__name__": "readme_durable"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    charges = [line for line in out.getvalue().splitlines() if line.startswith("    charging")]
    assert charges == [
        "    charging o-2: 75",
        "    charging o-7: 5000",
    ]  # o-1 was charged once, by the worker
    lines = [line for line in out.getvalue().splitlines() if not line.startswith("    charging")]
    assert lines[0] == "o-2 receipt-o-2"
    assert lines[1] == "Order(order_id='o-7', amount=5000, receipt='receipt-o-7', approved=True)"
    assert lines[2].startswith(
        "o-8 (waiting, machine changed): DIVERGES at step 1: it stopped in state APPROVING"
    )
    assert lines[3].startswith("run o-8: machine durable_orders:ORDERS changed")


def test_the_server_example_answers_once_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(README.parent / "examples"))
    block = _block_with("create_app(store, [email_agent])")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "readme_server"})
    lines = [line for line in out.getvalue().splitlines() if not line.startswith("    [send_email]")]
    pending = (
        "[{'run_id': 'email-1', 'seq': 1, 'type': 'AskHuman', 'summary': 'AskHuman send_email', 'path': []}]"
    )
    assert lines == [pending, "finished 409"]
    assert out.getvalue().count("[send_email]") == 1


def test_the_conversations_example_remembers_the_earlier_turn() -> None:
    block = _block_with('support.chat(store, "chat-1"')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "readme_threads"})
    assert out.getvalue().splitlines() == [
        "1 Your name is Ada, as you said.",
        "['My name is Ada.', 'Nice to meet you, Ada! How can I help?', 'What is my name?']",
    ]
