"""Human in the loop: a tool that needs approval suspends the run; the paused run is
stored as JSON and resumed later, possibly by another process, with the human's decision.

    python examples/human_approval_agent.py                      # both halves, one process
    python examples/human_approval_agent.py --suspend-to run.json
    python examples/human_approval_agent.py --resume-from run.json --decision approve|reject|modify

Runs offline with a scripted LLM by default; with OPENAI_API_KEY, ANTHROPIC_API_KEY or
OLLAMA_HOST in the environment it asks that provider instead (``--offline`` forces the
script). Emails are never really sent: the tool prints them.

A stored run is resumed once: ``--resume-from run.json`` first moves the file to
``run.json.resumed`` (atomically), so a second resume, in this process or another,
is refused instead of sending the approved email again. A file that is not a run
stored by ``--suspend-to`` is refused with a message saying so.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from _common import choose_llm, finish
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react import Approved, Modified, ReactCompleted, Rejected, RunResult, Suspended
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.llm import AnyLlmProvider, LlmReply, ToolCall
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool

TASK = "Email the team at team@example.com that the release moves to Friday."


@tool(needs_approval=True, timeout=10.0)
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email (needs a human's approval).

    Args:
        to: Recipient address.
        subject: Subject line.
        body: Message text.
    """
    print(f"    [send_email] to={to!r} subject={subject!r}")
    return f"email sent to {to}"


def _first_half() -> LlmReply:
    args = {"to": "team@example.com", "subject": "Release date", "body": "The release moves to Friday."}
    return LlmReply(tool_calls=(ToolCall("", "send_email", args),))


def _second_half() -> LlmReply:
    return LlmReply(content="Done: the team has been told (or not) as the reviewer decided; see the history.")


def make_agent(llm: AnyLlmProvider) -> Agent:
    """The same agent definition in both processes (the run's state travels as JSON)."""
    return (
        AgentBuilder.new(TASK)
        .system_prompt("You are an assistant that can send emails with the send_email tool.")
        .llm(llm)
        .tools(send_email)
        .suspend_for_approval()
        .build()
        .unwrap()
    )


def decision_from(name: str) -> ApprovalDecision:
    if name == "approve":
        return Approved()
    if name == "reject":
        return Rejected("Wait until the date is confirmed.")
    return Modified({"to": "leads@example.com", "subject": "Release date", "body": "Release: Friday."})


def suspend(path: Path, offline: bool) -> int:
    llm = choose_llm(offline, lambda: ScriptedLlm([_first_half()]))
    print(f"LLM: {llm.name}\n-- process 1: run until a human is needed")
    match make_agent(llm.provider).run():
        case Success(Suspended() as paused):
            request = paused.request
            assert request is not None
            call = request.tool_call
            print(f"   paused in {paused.state.name}: {call.name}({call.arguments_json})")
            print(f"   reason: {request.reason}")
            path.write_text(paused.to_json(), encoding="utf-8")
            print(f"   stored the paused run ({path.stat().st_size} bytes of JSON) in {path}")
            return 0
        case Success(other):
            print(f"   finished without needing approval: {other!r}")
            return 0
        case Failure(error):
            print(f"Agent failed: {error.describe()}", file=sys.stderr)
    return 1


def claimed(path: Path) -> Path:
    """Where a stored run goes once it is resumed: it can be resumed only once."""
    return path.with_name(path.name + ".resumed")


def load(path: Path) -> Result[Suspended, str]:
    """The paused run stored in ``path`` by ``--suspend-to``, or why it cannot be resumed."""
    if not path.exists() and claimed(path).exists():
        return Failure(
            f"the run stored in {path} was already resumed (it was moved to {claimed(path)}); "
            "resuming it again would repeat the approved action. Start a new run with --suspend-to."
        )
    not_ours = f"{path} is not a stored run of this agent"
    hint = "Store one with --suspend-to FILE."
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return Failure(f"{not_ours} (it is not text). {hint}")
    except OSError as error:
        return Failure(f"cannot read {path}: {error.strerror or error}")
    match Suspended.from_json(text):
        case Success(paused) if paused.request is not None and paused.memory.task == TASK:
            return Success(paused)
        case Success(_):
            return Failure(f"{not_ours} (it is a paused run of another agent or task). {hint}")
        case Failure(error):
            why = error.message.removeprefix("not a stored agent run: ")  # not_ours says that already
            return Failure(f"{not_ours} ({why}). {hint}")
    raise AssertionError("unreachable")  # pragma: no cover


def claim(path: Path) -> Result[Path, str]:
    """Move the stored run aside before acting on it, so that a second resume finds nothing to repeat.

    The move is atomic: of two processes resuming the same file at once, one gets it.
    """
    try:
        path.replace(claimed(path))
    except FileNotFoundError:
        return Failure(f"the run stored in {path} was resumed by another process meanwhile")
    except OSError as error:
        return Failure(f"cannot mark {path} as resumed, so it is not resumed: {error.strerror or error}")
    return Success(claimed(path))


def show(done: ReactCompleted) -> None:
    print("\n=== FINAL ANSWER ===")
    print(done.answer)
    print("\n=== HISTORY ===")
    for entry in done.memory.history:
        call = f"{entry.tool.name}({entry.tool.arguments_json})"
        print(f"  step {entry.step}: {call} -> {entry.observation}")
    print("\n=== TRACE ===")
    print(done.trace.render(width=160))


def resume(path: Path, decision: str, offline: bool) -> int:
    llm = choose_llm(offline, lambda: ScriptedLlm([_second_half()]))
    print(f"-- process 2: load the paused run and resume it with decision {decision!r}")
    ready = load(path).bind(lambda paused: claim(path).map(lambda _moved: paused))
    match ready:
        case Failure(reason):
            print(f"error: {reason}", file=sys.stderr)
            return 1
        case Success(paused):
            print(f"   moved {path} to {claimed(path)}: this stored run cannot be resumed twice")
            result: RunResult = make_agent(llm.provider).resume(paused, decision_from(decision))
            match result:
                case Success(Suspended() as again):
                    print(f"paused again: {again!r}")
                    return 0
                case _:
                    return finish(result, show)
    return 1  # pragma: no cover


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="With neither --suspend-to nor --resume-from, both halves run in this process.",
    )
    parser.add_argument("--offline", action="store_true", help="use the scripted LLM even if a key is set")
    parser.add_argument(
        "--suspend-to", metavar="FILE", help="run until approval is needed, store the run in FILE"
    )
    parser.add_argument("--resume-from", metavar="FILE", help="resume the run stored in FILE")
    parser.add_argument("--decision", choices=("approve", "reject", "modify"), default="approve")
    args = parser.parse_args(argv)
    if args.suspend_to:
        return suspend(Path(args.suspend_to), args.offline)
    if args.resume_from:
        return resume(Path(args.resume_from), args.decision, args.offline)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "paused-run.json"
        code = suspend(path, args.offline)
        return code or (resume(path, args.decision, args.offline) if path.exists() else 0)


if __name__ == "__main__":
    raise SystemExit(main())
