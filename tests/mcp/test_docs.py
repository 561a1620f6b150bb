"""Every Python block of docs/mcp.md runs: the server is the installed reference one, the LLM scripted."""

from __future__ import annotations

import contextlib
import io
import re

from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm, ScriptedLlm
from tests.mcp.conftest import ROOT, require_everything

DOC = ROOT / "docs" / "mcp.md"
NPX = '"npx", "-y", "@modelcontextprotocol/server-everything"'


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def offline(block: str, provider: str) -> str:
    """The block with the installed reference server for npx and ``_scripted`` for the provider."""
    assert NPX in block and provider in block
    command = ", ".join(repr(part) for part in require_everything())
    return block.replace(NPX, command).replace(provider, "_scripted")


def run(source: str, **names: object) -> tuple[str, dict[str, object]]:
    namespace: dict[str, object] = {"__name__": "docs_mcp", **names}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(DOC), "exec"), namespace)
    return out.getvalue(), namespace


def test_every_block_is_tested_here() -> None:
    assert len(blocks()) == 3


def test_the_quick_start_runs() -> None:
    script = AsyncScriptedLlm(
        [
            LlmReply(tool_calls=(ToolCall("c1", "everything_get-sum", {"a": 19, "b": 23}),)),
            LlmReply(content="19 + 23 = 42, the server says."),
        ]
    )
    out, _ = run(offline(blocks()[0], 'openai_provider("gpt-4o-mini")'), _scripted=script)
    assert out == "19 + 23 = 42, the server says.\n"


def test_the_plan_and_execute_block_runs() -> None:
    plan = '{"goal": "add", "required_capabilities": ["everything_get-sum"], "initial_steps": ["add"]}'
    script = ScriptedLlm(
        [
            LlmReply(content=plan),
            LlmReply(tool_calls=(ToolCall("c1", "everything_get-sum", {"a": 19, "b": 23}),)),
            LlmReply(content="The sum is 42."),
        ]
    )
    _, namespace = run(offline(blocks()[1], 'ollama_provider("llama3.2")'), _scripted=script)
    done = namespace["result"]
    assert "The sum is 42." in repr(done) and "The sum of 19 and 23 is 42." in repr(done)


def test_the_in_process_testing_block_runs_as_printed() -> None:
    run(blocks()[2])  # its own assert checks the observation
