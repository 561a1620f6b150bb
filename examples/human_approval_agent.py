"""Human in the loop: a tool that needs approval suspends the run; the paused run waits in
a durable store (SQLite), another process lists what waits and answers it, and the run goes on.

    python examples/human_approval_agent.py                         # all three steps in one process
    python examples/human_approval_agent.py --db runs.db --start    # process 1: run until a human is needed
    python examples/human_approval_agent.py --db runs.db --pending  # process 2: what waits for an answer
    python examples/human_approval_agent.py --db runs.db --answer RUN --decision approve  # or reject, modify

Runs offline with a scripted LLM by default; with OPENAI_API_KEY, ANTHROPIC_API_KEY or
OLLAMA_HOST in the environment it asks that provider instead (``--offline`` forces the
script). Emails are never really sent: the tool prints them.

A waiting run is answered once: the store commits an answer only if none was committed
before (one SQL statement decides), so a second answer, from this process or another at
the same moment, is refused instead of sending the approved email again. The same store
works with the command line, run from this folder (runs are stored under the name
``human_approval_agent:EMAIL_AGENT``, which it imports): ``agentsm-runs --db runs.db list``,
``pending``, ``show RUN``, ``approve RUN 1 --resume``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from _common import choose_llm, finish
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react import (
    AgentMemory,
    Approved,
    Event,
    Modified,
    ReactCompleted,
    Rejected,
    RunResult,
    State,
    agent_failure,
)
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.agents.react.result import interpret_react
from agentsm_fn.durable import AnswerRefusal, AnswerRefused, Durable, DurableError, SqliteStore
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.llm import AnyLlmProvider, LlmReply, ToolCall
from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.messages import ToolResultMessage
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


def ask_to_send() -> LlmReply:
    """The scripted LLM's first reply: send the email (the tool that needs approval)."""
    args = {"to": "team@example.com", "subject": "Release date", "body": "The release moves to Friday."}
    return LlmReply(tool_calls=(ToolCall("call_send_email", "send_email", args),))


def report_sent() -> LlmReply:
    """The scripted LLM's reply once the human decided."""
    return LlmReply(content="Done: the team has been told (or not) as the reviewer decided; see the history.")


class EmailScript:
    """A scripted LLM for any number of runs: it replies from the conversation, not from a call count.

    Until the conversation holds the tool's result it asks to send the email; after it, it
    reports. So every run the server starts, and every resumed one, gets the same two replies.
    """

    def complete(self, request: LlmRequest) -> LlmReply:
        decided = any(isinstance(message, ToolResultMessage) for message in request.messages)
        return report_sent() if decided else ask_to_send()


def make_agent(llm: AnyLlmProvider) -> Agent:
    """The same agent definition in every process (the run's outcomes come from the store)."""
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


def durable_for(agent: Agent) -> Durable[State, Event, AgentMemory]:
    """The agent as a durable program: runs are stored under this name, effects performed by its shell.

    Its template is the agent's memory, so a run started from JSON (``POST /runs`` with only
    a ``task``) has the agent's tool, system prompt and approval settings.
    """
    name = "human_approval_agent:EMAIL_AGENT"
    return Durable(
        name=name, machine=agent.machine, shell=agent.shell, failure=agent_failure, template=agent.memory
    )


EMAIL_AGENT = durable_for(make_agent(choose_llm(False, EmailScript).provider))
"""What `agentsm-runs` loads to show, answer and resume this example's runs (it answers as process 3)."""


def open_store(path: Path, create: bool = False) -> Result[SqliteStore, str]:
    """The run store at ``path``. Only ``--start`` creates one: a mistyped ``--db`` is an error."""
    if not create and not path.exists():
        return Failure(f"no run store at {path} (start a run first, or give its --db)")
    return SqliteStore.open(path).alt(lambda error: f"cannot open the run store: {error.describe()}")


def start(path: Path, offline: bool) -> int:
    llm = choose_llm(offline, lambda: ScriptedLlm([ask_to_send()]))
    print(f"LLM: {llm.name}\n-- process 1: run until a human is needed")
    agent = make_agent(llm.provider)
    program = durable_for(agent)
    started = open_store(path, create=True).bind(
        lambda store: _closed_after(store, program.start(store, agent.memory).alt(_why))
    )
    match started:
        case Success(stored) if not stored.finished:
            request = stored.snapshot.memory.pending_approval
            assert request is not None
            call = request.tool_call
            print(f"   paused in {stored.snapshot.state.name}: {call.name}({call.arguments_json})")
            print(f"   reason: {request.reason}")
            print(f"   stored as run {stored.run_id} in {path}")
            return 0
        case Success(stored):
            print(f"   finished without needing approval: run {stored.run_id}")
            return 0
        case Failure(reason):
            print(f"error: {reason}", file=sys.stderr)
    return 1


def _why(error: DurableError) -> str:
    return error.describe()


T = TypeVar("T")


def _closed_after(store: SqliteStore, result: T) -> T:
    """``result``, once ``store`` (which made it) is closed: each process closes what it opened."""
    store.close()
    return result


def list_pending(path: Path) -> int:
    print("-- process 2: what waits for an answer")
    match open_store(path).bind(lambda store: _closed_after(store, pending(store).alt(_why))):
        case Success(waiting):
            for item in waiting:
                print(f"   {item.run_id} {item.seq} {item.summary}")
            if not waiting:
                print("   nothing waits for an answer")
            return 0
        case Failure(reason):
            print(f"error: {reason}", file=sys.stderr)
    return 1


def answer_and_resume(path: Path, run_id: str, decision: str, offline: bool) -> int:
    llm = choose_llm(offline, lambda: ScriptedLlm([report_sent()]))
    print(f"-- process 3: answer run {run_id} with {decision!r} and run it on")
    opened = open_store(path)
    if isinstance(opened, Failure):
        print(f"error: {opened.failure()}", file=sys.stderr)
        return 1
    store = opened.unwrap()
    try:
        return _answer_and_resume(store, path, run_id, decision, llm.provider)
    finally:
        store.close()


def _answer_and_resume(
    store: SqliteStore, path: Path, run_id: str, decision: str, provider: AnyLlmProvider
) -> int:
    if isinstance(known := store.get(run_id), Failure):
        print(f"error: {known.failure().describe()} in {path} (see --pending)", file=sys.stderr)
        return 1
    waiting = [item for item in pending(store).value_or(()) if item.run_id == run_id]
    seq = waiting[0].seq if waiting else _last_entry(store, run_id)
    answered = answer(store, run_id, seq, decision_from(decision))
    if isinstance(answered, Failure):
        error = answered.failure()
        again = isinstance(error, AnswerRefused) and error.kind is AnswerRefusal.ANSWERED_ALREADY
        hint = " (answering again would repeat the approved action)" if again else ""
        print(f"error: {error.describe()}{hint}", file=sys.stderr)
        return 1
    print(f"   answered entry {seq}: this run cannot be answered twice")
    durable = durable_for(make_agent(provider))
    resumed = durable.resume(store, run_id)
    if isinstance(resumed, Failure):
        print(f"error: {resumed.failure().describe()}", file=sys.stderr)
        return 1
    # The resumed run's trace starts where it was loaded; replaying the journal gives the whole of it.
    whole = replay_stored(store, durable.machine, run_id).value_or(resumed.unwrap().snapshot)
    result: RunResult = interpret_react(Success(whole))
    return finish(result, show)


def _last_entry(store: SqliteStore, run_id: str) -> int:
    """The run's last entry that waited for an answer (the one a second answer would be for)."""
    rows = [row for row in store.journal(run_id).value_or(()) if row.waiting]
    return rows[-1].seq if rows else 0


def show(done: ReactCompleted) -> None:
    print("\n=== FINAL ANSWER ===")
    print(done.answer)
    print("\n=== HISTORY ===")
    for entry in done.memory.history:
        call = f"{entry.tool.name}({entry.tool.arguments_json})"
        print(f"  step {entry.step}: {call} -> {entry.observation}")
    print("\n=== TRACE ===")
    print(done.trace.render(width=160))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="With none of --start, --pending, --answer, all three steps run in this process.",
    )
    parser.add_argument("--offline", action="store_true", help="use the scripted LLM even if a key is set")
    parser.add_argument("--db", metavar="FILE", help="the SQLite run store (created if missing)")
    parser.add_argument(
        "--start", action="store_true", help="run until approval is needed; the run waits in --db"
    )
    parser.add_argument(
        "--pending", action="store_true", help="list the runs in --db that wait for an answer"
    )
    parser.add_argument("--answer", metavar="RUN", help="answer the run RUN in --db and run it on")
    parser.add_argument("--decision", choices=("approve", "reject", "modify"), default="approve")
    args = parser.parse_args(argv)
    if (args.start or args.pending or args.answer) and not args.db:
        parser.error("--start, --pending and --answer need --db FILE")
    if args.start:
        return start(Path(args.db), args.offline)
    if args.pending:
        return list_pending(Path(args.db))
    if args.answer:
        return answer_and_resume(Path(args.db), args.answer, args.decision, args.offline)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.db"
        code = start(path, args.offline) or list_pending(path)
        if code:
            return code
        store = SqliteStore.open(path).unwrap()
        waiting = pending(store).unwrap()
        store.close()
        return answer_and_resume(path, waiting[0].run_id, args.decision, args.offline) if waiting else 0


if __name__ == "__main__":
    raise SystemExit(main())
