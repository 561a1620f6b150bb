"""A ReAct agent using the tools of an MCP server: the protocol's reference server, "everything".

The server runs as a subprocess over stdio (``bash scripts/mcp_everything.sh`` installs it
under ``.cache/``; ``--server-command`` runs another one, ``--http URL`` connects to one over
Streamable HTTP). Its tools become ordinary agent tools named ``everything_*``, and the
agent's policies apply to them: ``get-env`` needs a human's approval (here a callback that
refuses: environments hold keys), ``gzip-file-as-resource`` (it downloads) is blacklisted,
two calls of one reply run at once.

Runs offline with a scripted LLM by default. With OPENAI_API_KEY, ANTHROPIC_API_KEY or
OLLAMA_HOST in the environment it asks that provider instead (``--offline`` forces the
script; see ``choose_llm`` in ``_common.py``).

    bash scripts/mcp_everything.sh && python examples/mcp_agent.py
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from _common import choose_llm, finish

from agentsm_fn.agents.react import HumanApprovalRequest, ReactCompleted, Rejected
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.mcp import McpClient, McpConnectError
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm

TASK = "What is 19 + 23, and what does the MCP logo look like? Use the server's tools."
ROOT = Path(__file__).resolve().parents[1]


def installed_server() -> list[str] | None:
    """``node .../server-everything/dist/index.js stdio`` when scripts/mcp_everything.sh installed it."""
    prefix = Path(os.environ.get("MCP_EVERYTHING_PREFIX", ROOT / ".cache" / "mcp-everything"))
    entry = prefix / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    node = shutil.which("node")
    return [node, str(entry), "stdio"] if node and entry.is_file() else None


def scripted() -> ScriptedLlm:
    """What a model would answer, for running without a network."""
    return ScriptedLlm(
        [
            LlmReply(  # two calls in one reply: they run at the same time
                tool_calls=(
                    ToolCall("", "everything_get-sum", {"a": 19, "b": 23}),
                    ToolCall("", "everything_get-tiny-image", {}),
                )
            ),
            LlmReply(tool_calls=(ToolCall("", "everything_get-env", {}),)),  # needs approval: refused
            LlmReply(
                content="19 + 23 = 42. The MCP logo is a small PNG image; "
                "I did not read the server's environment, which was not approved."
            ),
        ]
    )


def refuse_environment(request: HumanApprovalRequest) -> Rejected:
    """The human in the loop, as a callback: say no to reading the server's environment."""
    print(f"approval asked for {request.tool_call.name} ({request.reason}): refused")
    return Rejected("environment variables may hold keys")


def show(done: ReactCompleted) -> None:
    print("\n=== TOOL CALLS ===")
    for entry in done.snapshot.memory.history:
        observation = entry.observation.replace("\n", "\n      ")
        print(f"  {entry.tool.name}: {observation}")
    print("\n=== FINAL ANSWER ===")
    print(done.answer)
    print("\n=== TRACE ===")
    print(done.trace.render(width=160))


def client_from(args: argparse.Namespace) -> McpClient | None:
    """The client of the server asked for, or None when the reference server is not installed."""
    if args.http:
        return McpClient.http(args.http, prefix="everything", needs_approval={"get-env"}, timeout=30.0)
    command = shlex.split(args.server_command) if args.server_command else installed_server()
    if not command:
        return None
    return McpClient.stdio(*command, prefix="everything", needs_approval={"get-env"}, timeout=30.0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--offline", action="store_true", help="use the scripted LLM even if a key is set")
    parser.add_argument("--server-command", help="start this MCP server over stdio instead")
    parser.add_argument("--http", metavar="URL", help="connect to an MCP server over Streamable HTTP instead")
    args = parser.parse_args(argv)
    client = client_from(args)
    if client is None:
        print(
            "the MCP reference server is not installed: run `bash scripts/mcp_everything.sh`", file=sys.stderr
        )
        return 2
    llm = choose_llm(args.offline, scripted)
    print(f"LLM: {llm.name}")
    try:
        with client:
            print(f"MCP server: {client.name}, {len(client.tools())} tools")
            for tool in client.tools():
                print(f"  {tool.name}: {tool.definition.description[:70]}")
            agent = (
                AgentBuilder.new(TASK)
                .llm(llm.provider)
                .max_steps(6)
                .tools(*client.tools())
                .blacklist_tool("everything_gzip-file-as-resource")
                .approve_with(refuse_environment)
                .build()
                .unwrap()
            )
            return finish(agent.run(), show)
    except McpConnectError as error:
        print(f"could not connect: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
